import { CsvError, parse as parseCsv } from 'csv-parse/sync';
import type { BatchWriter } from './batch-writer.js';
import { ingestError } from './errors.js';

/** Called before each event is added, so a body past the per-request limit stops early. */
export type CountEvent = () => void;

/** `application/x-ndjson`: one JSON value per line; a malformed line fails that event only. Blank lines are skipped. */
export function readNdjson(text: string, writer: BatchWriter, countEvent: CountEvent): void {
  let lineNumber = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lineNumber++;
    const line = text.slice(start, end);
    start = end + 1;
    if (isBlank(line)) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      countEvent();
      writer.fail(writer.nowMs, `Line ${lineNumber} is not valid JSON (${(error as Error).message}). Expected one JSON object per line.`);
      continue;
    }
    // A line holding an array of events is read as those events, as a JSON body would be.
    const events = Array.isArray(value) ? value : [value];
    for (const [index, event] of events.entries()) {
      countEvent();
      writer.add(event, Array.isArray(value) ? `line ${lineNumber}, element ${index + 1}` : `line ${lineNumber}`);
    }
  }
}

/** `application/json`: an array of events, or a single event object. An empty body holds no events. */
export function readJson(text: string, writer: BatchWriter, countEvent: CountEvent): void {
  if (text.trim() === '') return;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw ingestError('invalid',
      'invalid_json',
      `The request body is not valid JSON (${(error as Error).message}). Expected an array of event objects, or Content-Type application/x-ndjson for one event per line.`,
    );
  }
  if (Array.isArray(value)) {
    for (const [index, event] of value.entries()) {
      countEvent();
      writer.add(event, `event ${index + 1}`);
    }
  } else if (value !== null && typeof value === 'object') {
    countEvent();
    writer.add(value, 'event 1');
  } else {
    throw ingestError('invalid', 'invalid_json', `The request body is ${JSON.stringify(value)}. Expected an array of event objects.`);
  }
}

const CSV_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * `text/csv`: a header row of field names (or `fields` from X-Axiom-CSV-Fields) then one event
 * per row. A cell that reads as a JSON number becomes a number, `true`/`false` a boolean, an
 * empty cell is left out, anything else is a string. A row with another number of cells than
 * there are fields fails that event.
 */
export function readCsv(text: string, delimiter: string, fields: readonly string[] | undefined, writer: BatchWriter, countEvent: CountEvent): void {
  let rows: string[][];
  try {
    rows = parseCsv(text, { delimiter, bom: true, relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (error) {
    const reason = error instanceof CsvError ? error.message : String(error);
    throw ingestError('invalid', 'invalid_csv', `The CSV body cannot be read: ${reason} Expected RFC 4180 CSV with fields separated by ${JSON.stringify(delimiter)}.`);
  }
  const header = fields ?? rows.shift();
  if (!header) {
    throw ingestError('invalid', 'missing_csv_header', 'The CSV body has no header row. Expected a first row of field names, or the field names in the X-Axiom-CSV-Fields header.');
  }
  const firstDataRow = fields ? 1 : 2;
  for (const [index, row] of rows.entries()) {
    countEvent();
    if (row.length !== header.length) {
      writer.fail(writer.nowMs, `Row ${index + firstDataRow} has ${row.length} value${row.length === 1 ? '' : 's'}. Expected ${header.length}, one for each field of the header (${header.join(delimiter)}).`);
      continue;
    }
    // No prototype, so a field named "__proto__" is a field like any other.
    const event = Object.create(null) as Record<string, unknown>;
    for (const [column, cell] of row.entries()) {
      if (cell !== '') event[header[column] as string] = csvValue(cell);
    }
    writer.add(event, `row ${index + firstDataRow}`);
  }
}

function csvValue(cell: string): unknown {
  if (CSV_NUMBER.test(cell)) {
    const number = Number(cell);
    if (Number.isFinite(number)) return number;
  }
  return cell === 'true' ? true : cell === 'false' ? false : cell;
}

/** Whitespace only (checked without making a trimmed copy of every line). */
function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0d && code !== 0x0a) return false;
  }
  return true;
}
