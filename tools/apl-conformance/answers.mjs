#!/usr/bin/env node
/**
 * Whether the APL reference's self-contained examples answer what the pages say they answer: every
 * ```kusto block that needs no dataset (`selfContained` below), run on a fresh local service and
 * compared with the output the page documents after it. Most of them (the "APL equivalent" of the
 * pages' comparisons with SPL and SQL) document no output: those are run and must answer 200.
 *
 *   node tools/apl-conformance/answers.mjs --docs /path/to/axiomhq/docs [--json results.json]
 *
 * `--docs` is a clone of github.com/axiomhq/docs (a work tree, or a bare repository read at HEAD);
 * the pages are read from there, never copied into this repository.
 *
 * What counts as the documented output: the first markdown table or fenced block (not kusto, sql
 * or another query language) after the example and before the next query block, heading, tab or
 * accordion. A sentence ("returns 3") is not read: such an example has no documented output. Blocks
 * under a "Syntax" heading are the grammar, not examples, and are left out.
 *
 * Not checkable (listed, not compared): an output with an ellipsis (`...`, `…`), which only
 * illustrates; an example calling `rand`, `now`, `ago` or another function whose answer changes
 * from run to run.
 *
 * How an answer is compared with the page:
 * - a table: the column names as documented (backticks left out), then the rows, cell by cell;
 *   a JSON block: an object whose keys are the columns (one row), an array of such objects (rows),
 *   or else the value of a one-column, one-row answer; any other block: the text of that value,
 *   whitespace runs counting as one space;
 * - rows in the documented order when the query sorts (`sort`, `order`, `top`, `make-series`);
 *   otherwise in the documented order or, failing that, as a multiset, since without a sort the
 *   order is not part of the answer;
 * - numbers equal once the answer is rounded (or truncated: pages do both) to the decimals the page
 *   writes, `1.0472` for acos(0.5); datetimes equal as instants whatever their format (a page's time
 *   without a zone is UTC); timespans as durations (`01:30:00`, `1.5h`, `1h30m` alike); arrays and
 *   property bags as JSON, their numbers as above; bools and null by name (an empty cell is null or
 *   the empty string); strings trimmed, a page's quotes around the whole string ignored.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { kustoBlocks, queryApl, readPages, withLocalService } from './reference.mjs';

const SELF_CONTAINED = /^(print|datatable|range|let|union)\b/;
const PLAYGROUND_DATASET = /\[\s*['"](sample-http-logs|otel-demo-[a-z-]+|github-[a-z-]+)['"]\s*\]/;
const VOLATILE = /\b(rand|now|ago|ingestion_time|cursor_current|new_guid)\s*\(/;
const ILLUSTRATIVE = /\.\.\.|…/;
const ORDERED = /\|\s*(sort|order|top|make-series)\b/;
const NOT_OUTPUT_LANGUAGES = new Set(['kusto', 'sql', 'splunk', 'spl', 'apl', 'bash']);

const { values } = parseArgs({ options: { docs: { type: 'string' }, json: { type: 'string' } } });
if (values.docs === undefined) {
  console.error('Missing --docs DIR: a clone of github.com/axiomhq/docs (work tree or bare repository).');
  process.exit(2);
}

/** The self-contained examples of one page, each with its documented output when it has one. */
function pageExamples(page, text) {
  const found = [];
  for (const { apl, start, end } of kustoBlocks(text)) {
    const code = apl.replace(/^\s*\/\/.*$/gm, '').trim();
    if (!selfContained(code)) continue;
    if (/syntax/i.test(lastHeading(text.slice(0, start)))) continue;
    found.push({ page, apl, documented: documentedOutput(text.slice(end)) });
  }
  return found;
}

/**
 * Whether a query needs no dataset: it starts with `print`, `datatable`, `range`, `union (` or
 * `let`, names no Playground dataset, reads no `externaldata` (a URL), and after its `let`
 * statements goes on with one of those or with a name a `let` bound (a lone `let` is a fragment).
 */
function selfContained(code) {
  if (!SELF_CONTAINED.test(code) || PLAYGROUND_DATASET.test(code) || /\bexternaldata\b/.test(code)) return false;
  const bound = [...code.matchAll(/\blet\s+([A-Za-z_]\w*)\s*=/g)].map((m) => m[1]);
  const body = code.split(/;\s*\n/).at(-1).trim();
  const first = /^[A-Za-z_]\w*/.exec(body)?.[0] ?? '';
  if (first === 'union') return /^union\s*(withsource\s*=\s*\w+\s*)?\(/.test(body);
  return ['print', 'datatable', 'range'].includes(first) || bound.includes(first);
}

function lastHeading(before) {
  const headings = before.match(/^#{1,6} .*$/gm);
  return headings?.[headings.length - 1] ?? '';
}

/** The first table or output block in the text that follows an example, before anything else starts. */
function documentedOutput(after) {
  const lines = after.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (/^#{1,6} |^<\/?(Tab|Tabs|Accordion|CodeGroup)\b/.test(line)) return undefined;
    const open = /^```([A-Za-z]*)/.exec(line);
    if (open) {
      if (NOT_OUTPUT_LANGUAGES.has(open[1])) return undefined;
      const end = lines.findIndex((l, j) => j > i && l.trim().startsWith('```'));
      return { kind: 'block', text: lines.slice(i + 1, end < 0 ? undefined : end).join('\n') };
    }
    if (line.startsWith('|')) {
      const rows = [];
      for (let j = i; j < lines.length && lines[j].trim().startsWith('|'); j++) rows.push(lines[j].trim());
      return tableOutput(rows);
    }
  }
  return undefined;
}

function tableOutput(rows) {
  const cells = (row) => row.replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map((cell) => cell.replaceAll('\\|', '|').trim());
  const [header, , ...body] = rows;
  return { kind: 'table', text: rows.join('\n'), columns: cells(header ?? '').map(unticked), rows: body.map(cells) };
}

function unticked(cell) {
  return cell.replace(/^`(.*)`$/s, '$1').replace(/^\*\*(.*)\*\*$/s, '$1').trim();
}

async function check(url, example) {
  const { documented, apl } = example;
  const answer = await queryApl(url, apl);
  const failed = answer.status === 200 ? undefined : `the service answered ${answer.status}: ${answer.message}`;
  const table = answer.body?.tables[0];
  const got = table && { columns: table.fields.map((f) => f.name), types: table.fields.map((f) => f.type), rows: rowsOf(table) };
  if (documented === undefined) return failed === undefined ? { outcome: 'no output', got } : { outcome: 'no output', why: failed };
  if (ILLUSTRATIVE.test(documented.text) || VOLATILE.test(apl)) return { outcome: 'not checkable' };
  if (failed !== undefined) return { outcome: 'mismatch', why: failed };
  const why = documented.kind === 'table' ? compareTable(documented, got, ORDERED.test(apl)) : compareBlock(documented.text, got);
  return why === undefined ? { outcome: 'match', got } : { outcome: 'mismatch', why, got };
}

function rowsOf(table) {
  const count = table.columns[0]?.length ?? 0;
  return Array.from({ length: count }, (_, r) => table.columns.map((column) => column[r]));
}

function compareTable(documented, got, ordered) {
  if (documented.columns.join(', ') !== got.columns.join(', ')) return `columns: documented ${documented.columns.join(', ')}; got ${got.columns.join(', ')}`;
  if (documented.rows.length !== got.rows.length) return `${documented.rows.length} rows documented, ${got.rows.length} answered`;
  const rowMatches = (doc, row) => row.every((value, c) => sameValue(doc[c] ?? '', value, got.types[c]));
  if (documented.rows.every((doc, r) => rowMatches(doc, got.rows[r]))) return undefined;
  if (!ordered && sameMultiset(documented.rows, got.rows, rowMatches)) return undefined;
  const r = documented.rows.findIndex((doc, i) => !rowMatches(doc, got.rows[i]));
  const c = got.rows[r].findIndex((value, i) => !sameValue(documented.rows[r][i] ?? '', value, got.types[i]));
  return `row ${r + 1}, ${got.columns[c]}: documented ${documented.rows[r][c]}; got ${JSON.stringify(got.rows[r][c])}`;
}

function sameMultiset(documented, rows, matches) {
  const left = [...rows];
  return documented.every((doc) => {
    const i = left.findIndex((row) => matches(doc, row));
    return i >= 0 && left.splice(i, 1).length === 1;
  });
}

function compareBlock(text, got) {
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const asRow = (object) => got.columns.every((name, c) => name in object && sameJson(object[name], got.rows[0]?.[c]));
  if (isBag(json) && got.rows.length === 1 && got.columns.every((name) => name in json)) {
    return asRow(json) ? undefined : `documented ${JSON.stringify(json)}; got ${JSON.stringify(Object.fromEntries(got.columns.map((n, c) => [n, got.rows[0][c]])))}`;
  }
  if (Array.isArray(json) && json.every(isBag) && json.length > 0 && got.columns.every((name) => name in json[0])) {
    if (json.length !== got.rows.length) return `${json.length} rows documented, ${got.rows.length} answered`;
    return json.every((object, r) => got.columns.every((name, c) => sameJson(object[name], got.rows[r][c]))) ? undefined : `documented ${text.trim()}; got ${JSON.stringify(got.rows)}`;
  }
  if (got.rows.length !== 1 || got.columns.length !== 1) return `the page documents one value; got ${got.rows.length} rows of ${got.columns.join(', ')}`;
  const value = got.rows[0][0];
  if (json !== undefined && sameJson(json, value)) return undefined;
  if (typeof value === 'string' && value.replace(/\s+/g, ' ').trim() === text.replace(/\s+/g, ' ').trim()) return undefined;
  return `documented ${text.trim()}; got ${JSON.stringify(value)}`;
}

function isBag(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A documented cell (text) against an answered value of the column's type. */
function sameValue(cell, value, type) {
  const doc = unticked(cell);
  if (value === null || value === undefined) return doc === '' || /^null$/i.test(doc);
  if (typeof value === 'boolean') return doc.toLowerCase() === String(value);
  if (typeof value === 'number') return sameNumber(doc, value);
  if (type === 'timespan' && durationNs(doc) !== undefined) return durationNs(doc) === durationNs(value);
  if (type === 'datetime') return sameInstant(doc, value);
  if (typeof value === 'object') return sameJson(parseLoose(doc), value);
  const text = String(value).trim();
  return doc === text || unquoted(doc) === text || sameJson(parseLoose(doc), parseLoose(text), true);
}

function unquoted(text) {
  return text.replace(/^"(.*)"$/s, '$1').replace(/^'(.*)'$/s, '$1');
}

/** Numbers: the answer rounded or truncated to the decimals the page writes. */
function sameNumber(doc, value) {
  const text = doc.replace(/,/g, '');
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return false;
  const expected = Number(text);
  if (/[eE]/.test(text)) return Math.abs(expected - value) <= Math.abs(expected) * 1e-6;
  const decimals = text.split('.')[1]?.length ?? 0;
  const scale = 10 ** decimals;
  const close = (x) => Math.abs(x - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
  return close(Math.round(value * scale) / scale) || close(Math.trunc(value * scale) / scale);
}

function sameInstant(doc, value) {
  const parse = (text) => {
    let t = String(text).trim().replace(/^(\d{4}-\d\d-\d\d)[ T]/, '$1T');
    if (/^\d{4}-\d\d-\d\d$/.test(t)) t += 'T00:00:00';
    if (!/(Z|[+-]\d\d:?\d\d)$/.test(t)) t += 'Z';
    // Date keeps milliseconds: nanoseconds beyond them are compared as text below.
    return Date.parse(t.replace(/(\.\d{3})\d+/, '$1'));
  };
  const a = parse(doc);
  return !Number.isNaN(a) && a === parse(value);
}

/** A duration in nanoseconds from Kusto's `[-][d.]hh:mm:ss[.f]` or APL's `1h30m`, `1.5s`, `100ms`. */
function durationNs(text) {
  const t = String(text).trim();
  const clock = /^(-)?(?:(\d+)\.)?(\d+):(\d\d):(\d\d)(?:\.(\d+))?$/.exec(t);
  if (clock) {
    const [, sign, d = '0', h, m, s, f = ''] = clock;
    const ns = ((BigInt(d) * 24n + BigInt(h)) * 60n + BigInt(m)) * 60n * 1_000_000_000n + BigInt(BigInt(s) * 1_000_000_000n) + BigInt((f + '000000000').slice(0, 9));
    return sign ? -ns : ns;
  }
  const units = { d: 86_400e9, h: 3_600e9, m: 60e9, s: 1e9, ms: 1e6, us: 1e3, 'µs': 1e3, ns: 1, tick: 100 };
  const parts = [...t.matchAll(/(-?\d+(?:\.\d+)?)\s*(d|h|ms|m|s|us|µs|ns|tick)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== t.replace(/\s+/g, '')) return undefined;
  return BigInt(Math.round(parts.reduce((sum, [, n, unit]) => sum + Number(n) * units[unit], 0)));
}

/** Text that may be JSON, or JSON with single quotes as the pages sometimes write it. */
function parseLoose(text) {
  for (const candidate of [text, text.replace(/'/g, '"')]) {
    try {
      return JSON.parse(candidate);
    } catch {
      // Not JSON in this form.
    }
  }
  return undefined;
}

/** Documented JSON against an answered value: numbers as `sameNumber`, strings that are instants as instants. */
function sameJson(doc, value, strict = false) {
  if (doc === undefined) return false;
  if (doc === null || value === null) return doc === value || (!strict && (doc === '' || value === ''));
  if (typeof doc === 'number') return typeof value === 'number' && sameNumber(String(doc), value);
  if (typeof doc === 'string') {
    if (typeof value === 'number') return sameNumber(doc, value);
    if (typeof value !== 'string') return !strict && sameJson(parseLoose(doc), value, true);
    return doc.trim() === value.trim() || (/^\d{4}-\d\d-\d\d/.test(doc) && sameInstant(doc, value)) || (durationNs(doc) !== undefined && durationNs(doc) === durationNs(value));
  }
  if (typeof doc !== 'object') return doc === value;
  if (typeof value === 'string' && !strict) return sameJson(doc, parseLoose(value), true);
  if (Array.isArray(doc)) return Array.isArray(value) && doc.length === value.length && doc.every((d, i) => sameJson(d, value[i], true));
  if (!isBag(value)) return false;
  const keys = Object.keys(doc);
  return keys.length === Object.keys(value).length && keys.every((key) => key in value && sameJson(doc[key], value[key], true));
}

function report(all) {
  const count = (outcome) => all.filter((r) => r.outcome === outcome).length;
  const withOutput = all.length - count('no output');
  // A page's SPL and SQL comparisons often end in the same query: each is an example, and counted.
  const distinct = new Set(all.map((r) => `${r.page}\n${r.apl.replace(/\s+/g, ' ')}`)).size;
  console.log(`${all.length} self-contained examples (${distinct} distinct) on ${new Set(all.map((r) => r.page)).size} pages`);
  console.log(`with a documented output: ${withOutput}; match: ${count('match')}; mismatch: ${count('mismatch')}; not checkable: ${count('not checkable')}`);
  const failing = all.filter((r) => r.outcome === 'no output' && r.why !== undefined);
  console.log(`without one: ${all.length - withOutput}, of which ${failing.length} fail to run`);
  for (const r of failing) console.log(`\n  ${r.page}\n${indent(r.apl, '    > ')}\n      why       ${r.why}`);
  for (const [title, outcome] of [['mismatches', 'mismatch'], ['not checkable', 'not checkable']]) {
    const byPage = new Map();
    for (const r of all.filter((r) => r.outcome === outcome)) byPage.set(r.page, [...(byPage.get(r.page) ?? []), r]);
    if (byPage.size === 0) continue;
    console.log(`\n${title}, by page:`);
    for (const [page, rows] of [...byPage].sort(([a], [b]) => a.localeCompare(b))) {
      console.log(`\n  ${page}`);
      for (const r of rows) {
        console.log(indent(r.apl, '    > '));
        if (outcome === 'mismatch') {
          console.log(indent(r.documented.text, '      expected  '));
          if (r.got !== undefined) console.log(indent(gotTable(r.got), '      got       '));
          console.log(`      why       ${r.why}`);
        }
      }
    }
  }
  if (values.json !== undefined) {
    writeFileSync(values.json, JSON.stringify(all, null, 2));
    console.log(`\nevery example, with its outcome: ${values.json}`);
  }
}

function indent(text, prefix) {
  return text.trim().split('\n').map((line) => prefix + line).join('\n');
}

function gotTable({ columns, rows }) {
  const cell = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
  return [`| ${columns.join(' | ')} |`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');
}

const examples = readPages(values.docs).flatMap(({ path, text }) => pageExamples(path, text));
const results = await withLocalService(async (url) => {
  const done = [];
  for (const example of examples) done.push({ ...example, ...(await check(url, example)) });
  return done;
});
report(results);
