import type { PlanColumn, PlanNode } from '../plan/types.js';
import type { QueryRows } from '../store/types.js';
import { jsonSize, toJson, type JsonValue } from './values.js';

/** A status message; codes are ones the official clients know (wire.md). */
export interface ResultMessage {
  readonly priority: 'info' | 'warn' | 'error';
  readonly count: number;
  readonly code: string;
  readonly msg: string;
}

/** The result rows decoded to JSON values, column by column, with the caps applied. */
export interface DecodedRows {
  /** JSON values by plan column id. */
  readonly values: ReadonlyMap<number, readonly JsonValue[]>;
  readonly rowCount: number;
  readonly messages: readonly ResultMessage[];
  /** Rows were left out by a cap (not by the default limit, which is a normal outcome). */
  readonly partial: boolean;
}

export interface RowCaps {
  /** Stop adding rows once the reply would exceed about this many bytes. */
  readonly maxResultBytes: number;
  /** What the caller can change to stay under each cap, in the words of the query's language. */
  readonly advice: CapAdvice;
}

/** The sentence that ends a cap's message: how to ask for less, in the query's own terms. */
export interface CapAdvice {
  readonly rows: string;
  readonly bytes: string;
}

export const APL_CAP_ADVICE: CapAdvice = {
  rows: 'Add | take N, a filter or a summarize.',
  bytes: 'Project fewer fields or take fewer rows.',
};

/**
 * Decodes what DuckDB returned. Applies, in order: the default limit (the statement read one row
 * more, to know whether rows were left out), the store's row cap, and the result-size cap.
 */
export function decodeRows(root: PlanNode, columns: readonly PlanColumn[], rows: QueryRows, caps: RowCaps): DecodedRows {
  const messages: ResultMessage[] = [];
  let partial = false;
  let rowCount = rows.rowCount;
  if (root.kind === 'limit' && root.implicit && rowCount > root.count) {
    rowCount = root.count;
    messages.push({
      priority: 'warn',
      count: 1,
      code: 'default_limit_warning',
      msg: `Query returned more than the default limit of ${root.count} rows; only the first ${root.count} are shown. Add | take N or | limit N to choose.`,
    });
  } else if (rows.truncated) {
    partial = true;
    messages.push({
      priority: 'warn',
      count: 1,
      code: 'apl_result_row_limit',
      msg: `The result has more than ${rows.rowCount} rows; only the first ${rows.rowCount} are returned. ${caps.advice.rows}`,
    });
  }

  const decoded = new Map<number, JsonValue[]>();
  columns.forEach((column, index) => {
    const raw = rows.columns[index] ?? [];
    const out: JsonValue[] = new Array<JsonValue>(rowCount);
    for (let row = 0; row < rowCount; row++) out[row] = toJson(raw[row], column.type);
    decoded.set(column.id, out);
  });

  const visible = columns.filter((column) => !column.hidden).map((column) => decoded.get(column.id) ?? []);
  let bytes = 0;
  for (let row = 0; row < rowCount; row++) {
    for (const values of visible) bytes += jsonSize(values[row] ?? null) + 1;
    if (bytes > caps.maxResultBytes) {
      partial = true;
      messages.push({
        priority: 'warn',
        count: 1,
        code: 'apl_result_size_limit',
        msg: `The result is larger than the limit of ${caps.maxResultBytes} bytes; only the first ${row} rows are returned. ${caps.advice.bytes}`,
      });
      for (const [id, values] of decoded) decoded.set(id, values.slice(0, row));
      rowCount = row;
      break;
    }
  }
  return { values: decoded, rowCount, messages, partial };
}
