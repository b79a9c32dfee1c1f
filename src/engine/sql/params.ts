import type { SqlParam } from '../store/types.js';

/** Bound parameters of one statement: `$1`, `$2`…, an equal value and type bound once. */
export class Params {
  readonly values: SqlParam[] = [];
  private readonly index = new Map<string, number>();

  /** A placeholder with an explicit cast, so the statement never depends on how the driver types JS values. */
  bind(value: string | bigint | number | boolean, sqlType: 'VARCHAR' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN'): string {
    const key = `${sqlType}:${typeof value}:${String(value)}`;
    let position = this.index.get(key);
    if (position === undefined) {
      this.values.push(value);
      position = this.values.length;
      this.index.set(key, position);
    }
    return `$${position}::${sqlType}`;
  }
}
