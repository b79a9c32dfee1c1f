/**
 * The little the page needs to know about APL text: the default query for a dataset, and which
 * dataset a query reads (its source), so that the dataset picker and the query stay in step.
 * The service parses and checks queries; nothing here decides whether a query is valid.
 */
import { quoteAplName } from '../common/apl-name.js';

export function defaultQuery(dataset: string): string {
  return `${quoteAplName(dataset)} | summarize count() by bin_auto(_time)`;
}

interface Source {
  dataset: string;
  start: number;
  end: number;
}

/** Leading blanks and `//` comment lines, then `['name']`, `["name"]` or a bare identifier. */
const SOURCE = /^((?:\s|\/\/[^\n]*(?:\n|$))*)(?:\[\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*\]|([A-Za-z_][A-Za-z0-9_]*))/;

function findSource(apl: string): Source | undefined {
  const match = SOURCE.exec(apl);
  if (!match) return undefined;
  const quoted = match[2] ?? match[3];
  const dataset = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : match[4];
  // `let x = …;` starts with an identifier too, but it is a statement, not the source.
  if (dataset === undefined || (quoted === undefined && dataset === 'let')) return undefined;
  return { dataset, start: match[1]?.length ?? 0, end: match[0].length };
}

/** The dataset a query reads, when its text starts with one. */
export function sourceDataset(apl: string): string | undefined {
  return findSource(apl)?.dataset;
}

/** The query reading `dataset` instead of its current source; undefined when it has none. */
export function withSource(apl: string, dataset: string): string | undefined {
  const source = findSource(apl);
  if (!source) return undefined;
  return `${apl.slice(0, source.start)}${quoteAplName(dataset)}${apl.slice(source.end)}`;
}
