import type { AplTable } from '../../client/events-client.js';

/** Rows of a column-major table. */
function rowsOf(table: AplTable): unknown[][] {
  const columns = table.columns ?? [];
  const length = columns[0]?.length ?? 0;
  return Array.from({ length }, (_, row) => columns.map((column) => column[row]));
}

/** A cell as text: null as empty, objects and arrays as JSON. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const NUMERIC = new Set(['integer', 'float', 'integer|float']);
const MAX_CELL = 60;

/**
 * A table for people: a header, a rule, one line a row; numbers right-aligned; cells cut with "…"
 * at 60 characters, and the whole cut to the terminal's width when it is known.
 */
export function renderTable(table: AplTable, columns?: number): string {
  const headers = table.fields.map((field) => field.name);
  const rows = rowsOf(table).map((row) => row.map((value) => cellText(value).replace(/[\r\n\t]/g, ' ')));
  const clip = (text: string, width: number): string => ([...text].length > width ? `${[...text].slice(0, Math.max(1, width - 1)).join('')}…` : text);
  const widths = headers.map((header, index) => Math.min(MAX_CELL, Math.max([...header].length, ...rows.map((row) => [...(row[index] ?? '')].length))));
  const numeric = table.fields.map((field) => NUMERIC.has(field.type));
  const pad = (text: string, index: number): string => {
    const width = widths[index] ?? 0;
    const cell = clip(text, width);
    const room = ' '.repeat(Math.max(0, width - [...cell].length));
    return numeric[index] ? room + cell : cell + room;
  };
  const line = (cells: readonly string[]): string => {
    const text = cells.map(pad).join('  ').trimEnd();
    return columns && [...text].length > columns ? clip(text, columns) : text;
  };
  const rule = line(widths.map((width) => '─'.repeat(width)));
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

/** RFC 4180 CSV: a header row, fields quoted when they hold a comma, a quote or a line break. */
export function renderCsv(table: AplTable): string {
  const quote = (text: string): string => (/[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const lines = [table.fields.map((field) => quote(field.name)).join(',')];
  for (const row of rowsOf(table)) lines.push(row.map((value) => quote(cellText(value))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
