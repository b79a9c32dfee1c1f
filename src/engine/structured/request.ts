import { parseGoDuration } from '../../common/go-duration.js';
import { NS_PER } from '../apl/literals.js';
import { closestName } from '../apl/suggest.js';
import { SYS_TIME_FIELD, TIME_FIELD } from '../schema.js';
import { parseRowPosition, type RowPosition } from '../row-id.js';
import { StructuredQueryError } from './errors.js';

/**
 * The structured query's request (the seed's 2.2, wire.md "Structured query") read from its JSON
 * into a typed query, or a StructuredQueryError naming the member that is wrong. Every member is
 * optional, and `null`, `""`, `0` and the Go client's empty filter `{"op": ""}` all mean "not
 * given", because the Go client sends every key. Keys this service does not know are ignored.
 * Whether names exist and types fit is for the planner, which knows the dataset.
 */

export const AGGREGATION_OPS = [
  'count',
  'distinct',
  'makeset',
  'makelist',
  'sum',
  'avg',
  'min',
  'max',
  'topk',
  'percentiles',
  'histogram',
  'stdev',
  'variance',
  'argmin',
  'argmax',
  'rate',
  'countif',
  'distinctif',
  'makesetif',
] as const;
export type AggregationOp = (typeof AGGREGATION_OPS)[number];

export const LOGICAL_OPS = ['and', 'or', 'not'] as const;
export const LEAF_OPS = [
  '==',
  '!=',
  'exists',
  'not-exists',
  '>',
  '>=',
  '<',
  '<=',
  'starts-with',
  'not-starts-with',
  'ends-with',
  'not-ends-with',
  'regexp',
  'not-regexp',
  'contains',
  'not-contains',
] as const;
export type LogicalOp = (typeof LOGICAL_OPS)[number];
export type LeafOp = (typeof LEAF_OPS)[number];

/** Other spellings of filter ops (wire.md). */
export const FILTER_OP_ALIASES: Readonly<Record<string, LeafOp>> = { eq: '==', ne: '!=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

export type FilterValue = string | number | boolean | null;

export type StructuredFilter =
  | { readonly op: LogicalOp; readonly children: readonly StructuredFilter[]; readonly path: string }
  | {
      readonly op: LeafOp;
      readonly field: string;
      readonly value: FilterValue;
      readonly caseSensitive: boolean;
      /** Conditions a leaf carries besides its own; they must hold as well. */
      readonly children: readonly StructuredFilter[];
      readonly path: string;
    };

/** An aggregation's `argument`, as its op reads it. */
export type AggregationArgument =
  | { readonly kind: 'none' }
  /** topk: k; histogram: buckets; makeset, makelist: the most values kept; percentiles: one percentile. */
  | { readonly kind: 'number'; readonly value: number }
  /** percentiles: several percentiles, answered as an array in the same order. */
  | { readonly kind: 'numbers'; readonly values: readonly number[] }
  /** countif, distinctif, makesetif: the condition, a filter; undefined when it is empty. */
  | { readonly kind: 'condition'; readonly filter: StructuredFilter | undefined }
  /** argmin, argmax: fields whose values at the extreme row are returned besides the field's. */
  | { readonly kind: 'fields'; readonly fields: readonly string[] };

export interface StructuredAggregation {
  readonly op: AggregationOp;
  /** Undefined for count of rows (`*`, `""` or absent) and for countif. */
  readonly field: string | undefined;
  readonly alias: string | undefined;
  /** What results call it: the alias, or the op when there is none. */
  readonly label: string;
  readonly argument: AggregationArgument;
  readonly path: string;
}

export interface StructuredQuery {
  readonly startTime: string | undefined;
  readonly endTime: string | undefined;
  readonly aggregations: readonly StructuredAggregation[];
  readonly filter: StructuredFilter | undefined;
  readonly groupBy: readonly string[];
  readonly order: readonly { readonly field: string; readonly desc: boolean; readonly path: string }[];
  readonly project: readonly { readonly field: string; readonly alias: string | undefined; readonly path: string }[];
  readonly virtualFields: readonly { readonly alias: string; readonly expr: string; readonly path: string }[];
  /** Matches per page, or groups of the totals. */
  readonly limit: number;
  /** `limit` was not given: a result it cuts says so (`default_limit_warning`). */
  readonly limitIsDefault: boolean;
  /** Nanoseconds per series interval, or `auto` (apl.md's bin_auto ladder). */
  readonly resolution: bigint | 'auto';
  /** Resume strictly after this row (`cursor`, or `continuationToken`, which is the same). */
  readonly cursor: RowPosition | undefined;
  readonly includeCursor: boolean;
}

/** Limits of the request itself; each is a number a test or an operator can change. */
export interface StructuredLimits {
  /** Matches per page when `limit` is not given (wire.md). */
  readonly defaultLimit: number;
  /** The largest `limit` (wire.md). */
  readonly maxLimit: number;
  /** Items of any list: aggregations, groupBy, order, project, a filter's children. */
  readonly maxItems: number;
  /** Virtual fields: each is one more nested SELECT. */
  readonly maxVirtualFields: number;
  /** Nesting of filters, so that neither this reader nor the generated SQL recurses without bound. */
  readonly maxFilterDepth: number;
  /** Filter nodes in the whole request, arguments of countif and friends included. */
  readonly maxFilterNodes: number;
  /** Longest virtual field expression, in characters. */
  readonly maxExpressionLength: number;
  /** Most series intervals one result may have (the hosted service's 1000 is less than a day by the minute). */
  readonly maxIntervals: number;
}

export const STRUCTURED_LIMITS: StructuredLimits = {
  defaultLimit: 1000,
  maxLimit: 50_000,
  maxItems: 1000,
  maxVirtualFields: 100,
  maxFilterDepth: 32,
  maxFilterNodes: 1000,
  maxExpressionLength: 65_536,
  maxIntervals: 10_000,
};

/** Names every match carries outside `data`, which a virtual field may not take. */
const RESERVED_NAMES: readonly string[] = [TIME_FIELD, SYS_TIME_FIELD, '_rowId'];

const EXAMPLE = '{"startTime": "2024-01-01T00:00:00Z", "endTime": "2024-01-02T00:00:00Z", "aggregations": [{"op": "count"}]}';

/** Reads a structured query request body. Throws StructuredQueryError naming the first wrong member. */
export function parseStructuredQuery(body: unknown, limits: StructuredLimits = STRUCTURED_LIMITS): StructuredQuery {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new StructuredQueryError('', `The request body must be a JSON object such as ${EXAMPLE}.`);
  }
  const reader = new RequestReader(limits);
  const request = body as Record<string, unknown>;
  const cursor = reader.position('cursor', request.cursor);
  const continuation = reader.position('continuationToken', request.continuationToken);
  if (cursor && continuation && (cursor.time !== continuation.time || cursor.rowId !== continuation.rowId)) {
    throw new StructuredQueryError('continuationToken', 'Invalid continuationToken: it names another row than cursor. Send one of them.');
  }
  reader.object('queryOptions', request.queryOptions);
  return {
    startTime: reader.time('startTime', request.startTime),
    endTime: reader.time('endTime', request.endTime),
    aggregations: reader.list('aggregations', request.aggregations, (value, path) => reader.aggregation(value, path)),
    filter: reader.filter(request.filter, 'filter', 1),
    groupBy: reader.names('groupBy', request.groupBy),
    order: reader.list('order', request.order, (value, path) => {
      const item = reader.object(path, value) ?? {};
      return { field: reader.name(`${path}.field`, item.field), desc: reader.boolean(`${path}.desc`, item.desc), path };
    }),
    project: reader.list('project', request.project, (value, path) => {
      const item = reader.object(path, value) ?? {};
      return { field: reader.name(`${path}.field`, item.field), alias: reader.optionalString(`${path}.alias`, item.alias), path };
    }),
    virtualFields: reader.virtualFields(request.virtualFields),
    limit: reader.limit(request.limit),
    limitIsDefault: absent(request.limit) || request.limit === 0,
    resolution: reader.resolution(request.resolution),
    cursor: cursor ?? continuation,
    includeCursor: reader.boolean('includeCursor', request.includeCursor),
  };
}

const absent = (value: unknown): boolean => value === undefined || value === null;

function describe(value: unknown): string {
  if (value === undefined) return '(missing)';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function oneOf(ops: readonly string[], given: string): string {
  const suggestion = closestName(given, ops);
  return `Expected one of: ${ops.join(', ')}.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`;
}

class RequestReader {
  private filterNodes = 0;

  constructor(private readonly limits: StructuredLimits) {}

  object(path: string, value: unknown): Record<string, unknown> | undefined {
    if (absent(value)) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) throw new StructuredQueryError(path, `Invalid ${path} ${describe(value)}. Expected a JSON object.`);
    return value as Record<string, unknown>;
  }

  list<T>(path: string, value: unknown, item: (value: unknown, path: string) => T): T[] {
    if (absent(value)) return [];
    if (!Array.isArray(value)) throw new StructuredQueryError(path, `Invalid ${path} ${describe(value)}. Expected an array.`);
    if (value.length > this.limits.maxItems) {
      throw new StructuredQueryError(path, `${path} has ${value.length} items, more than the limit of ${this.limits.maxItems}.`);
    }
    return value.map((element, index) => item(element, `${path}[${index}]`));
  }

  boolean(path: string, value: unknown): boolean {
    if (absent(value)) return false;
    if (typeof value !== 'boolean') throw new StructuredQueryError(path, `Invalid ${path} ${describe(value)}. Expected true or false.`);
    return value;
  }

  /** A string, with `""` meaning not given. */
  optionalString(path: string, value: unknown): string | undefined {
    if (absent(value) || value === '') return undefined;
    if (typeof value !== 'string') throw new StructuredQueryError(path, `Invalid ${path} ${describe(value)}. Expected a string.`);
    return value;
  }

  /** A field name: a non-empty string. */
  name(path: string, value: unknown): string {
    if (absent(value) || value === '') throw new StructuredQueryError(path, `Missing ${path}. Expected a field name.`);
    if (typeof value !== 'string') throw new StructuredQueryError(path, `Invalid ${path} ${describe(value)}. Expected a field name as a string.`);
    return value;
  }

  names(path: string, value: unknown): string[] {
    const names = this.list(path, value, (item, itemPath) => this.name(itemPath, item));
    names.forEach((name, index) => {
      if (names.indexOf(name) !== index) throw new StructuredQueryError(`${path}[${index}]`, `Invalid ${path}[${index}]: ${describe(name)} is listed twice.`);
    });
    return names;
  }

  time(path: string, value: unknown): string | undefined {
    if (absent(value) || value === '') return undefined;
    if (typeof value !== 'string') {
      throw new StructuredQueryError(path, `Invalid ${path} ${describe(value)}. Expected an RFC 3339 time such as 2024-01-15T14:00:00Z, or now-1h.`);
    }
    return value;
  }

  position(path: string, value: unknown): RowPosition | undefined {
    const text = this.optionalString(path, value);
    if (text === undefined) return undefined;
    const position = parseRowPosition(text);
    if (!position) {
      throw new StructuredQueryError(path, `Invalid ${path} ${describe(text)}. Expected a cursor from an earlier result: a match's _rowId or status.continuationToken, such as "1704067200123000000-42".`);
    }
    return position;
  }

  limit(value: unknown): number {
    if (absent(value) || value === 0) return this.limits.defaultLimit;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > this.limits.maxLimit) {
      throw new StructuredQueryError('limit', `Invalid limit ${describe(value)}. Expected a whole number from 1 to ${this.limits.maxLimit} (0 or absent: ${this.limits.defaultLimit}).`);
    }
    return value;
  }

  resolution(value: unknown): bigint | 'auto' {
    const expected = 'Expected "auto" or a duration such as "1m", "5m0s" or "1h" (units ns, us, ms, s, m, h).';
    if (absent(value) || value === '' || value === 'auto') return 'auto';
    if (typeof value !== 'string') throw new StructuredQueryError('resolution', `Invalid resolution ${describe(value)}. ${expected}`);
    let milliseconds: number;
    try {
      milliseconds = parseGoDuration('resolution', value);
    } catch (error) {
      throw new StructuredQueryError('resolution', `Invalid resolution ${describe(value)}. ${expected}`, { cause: error });
    }
    const nanoseconds = BigInt(Math.round(milliseconds * Number(NS_PER.millisecond)));
    return nanoseconds === 0n ? 'auto' : nanoseconds;
  }

  virtualFields(value: unknown): StructuredQuery['virtualFields'] {
    const fields = this.list('virtualFields', value, (item, path) => {
      const field = this.object(path, item) ?? {};
      const alias = this.name(`${path}.alias`, field.alias);
      if (RESERVED_NAMES.includes(alias)) {
        throw new StructuredQueryError(`${path}.alias`, `Invalid ${path}.alias ${describe(alias)}: every match has it. Choose another name.`);
      }
      if (absent(field.expr) || field.expr === '') throw new StructuredQueryError(`${path}.expr`, `Missing ${path}.expr. Expected an APL expression such as "toint(status) >= 500".`);
      if (typeof field.expr !== 'string') throw new StructuredQueryError(`${path}.expr`, `Invalid ${path}.expr ${describe(field.expr)}. Expected an APL expression as a string.`);
      if (field.expr.length > this.limits.maxExpressionLength) {
        throw new StructuredQueryError(`${path}.expr`, `${path}.expr is ${field.expr.length} characters long, more than the limit of ${this.limits.maxExpressionLength}.`);
      }
      return { alias, expr: field.expr, path };
    });
    if (fields.length > this.limits.maxVirtualFields) {
      throw new StructuredQueryError('virtualFields', `virtualFields has ${fields.length} items, more than the limit of ${this.limits.maxVirtualFields}.`);
    }
    fields.forEach((field, index) => {
      if (fields.findIndex((other) => other.alias === field.alias) !== index) {
        throw new StructuredQueryError(`${field.path}.alias`, `Invalid ${field.path}.alias: ${describe(field.alias)} is defined twice.`);
      }
    });
    return fields;
  }

  // ── Filters ─────────────────────────────────────────────────────────────────────────────

  /** A filter tree; undefined for the empty filter (`{"op": ""}`), which restricts nothing. */
  filter(value: unknown, path: string, depth: number): StructuredFilter | undefined {
    const filter = this.object(path, value);
    if (!filter) return undefined;
    if (depth > this.limits.maxFilterDepth) {
      throw new StructuredQueryError(path, `${path} is nested ${depth} levels deep, more than the limit of ${this.limits.maxFilterDepth}.`);
    }
    if (++this.filterNodes > this.limits.maxFilterNodes) {
      throw new StructuredQueryError(path, `The request has more than ${this.limits.maxFilterNodes} filter conditions (at ${path}).`);
    }
    const rawOp = filter.op;
    if (rawOp !== undefined && rawOp !== null && typeof rawOp !== 'string') {
      throw new StructuredQueryError(`${path}.op`, `Invalid ${path}.op ${describe(rawOp)}. Expected a filter op as a string, such as "==" or "and".`);
    }
    const children = this.list(`${path}.children`, filter.children, (child, childPath) => this.filter(child, childPath, depth + 1)).filter(
      (child): child is StructuredFilter => child !== undefined,
    );
    const lowered = (rawOp ?? '').toLowerCase();
    if (lowered === '') {
      if (children.length > 0 || (!absent(filter.field) && filter.field !== '')) {
        throw new StructuredQueryError(`${path}.op`, `Missing ${path}.op: the filter has ${children.length > 0 ? 'children' : 'a field'} but no op. Expected "and", "or", or a comparison such as "==".`);
      }
      return undefined;
    }
    const op = FILTER_OP_ALIASES[lowered] ?? lowered;
    if ((LOGICAL_OPS as readonly string[]).includes(op)) {
      if (op === 'not' && children.length === 0) {
        throw new StructuredQueryError(`${path}.children`, `Missing ${path}.children: "not" negates its children and has none.`);
      }
      return { op: op as LogicalOp, children, path };
    }
    if (!(LEAF_OPS as readonly string[]).includes(op)) {
      throw new StructuredQueryError(`${path}.op`, `Invalid ${path}.op ${describe(rawOp)}. ${oneOf([...LOGICAL_OPS, ...LEAF_OPS, ...Object.keys(FILTER_OP_ALIASES)], lowered)}`);
    }
    const leaf = op as LeafOp;
    const field = this.name(`${path}.field`, filter.field);
    if (!absent(filter.caseSensitive) && typeof filter.caseSensitive !== 'boolean') {
      throw new StructuredQueryError(`${path}.caseSensitive`, `Invalid ${path}.caseSensitive ${describe(filter.caseSensitive)}. Expected true or false.`);
    }
    return { op: leaf, field, value: this.filterValue(leaf, filter.value, `${path}.value`), caseSensitive: filter.caseSensitive === true, children, path };
  }

  private filterValue(op: LeafOp, value: unknown, path: string): FilterValue {
    switch (op) {
      case 'exists':
      case 'not-exists':
        return null;
      case '==':
      case '!=':
        if (value === undefined || value === null) return null;
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
        throw new StructuredQueryError(path, `Invalid ${path} ${describe(value)}. Expected a string, a number, a boolean or null to compare with.`);
      case '>':
      case '>=':
      case '<':
      case '<=':
        if (typeof value === 'string' || typeof value === 'number') return value;
        if (absent(value)) throw new StructuredQueryError(path, `Missing ${path}. Expected a number, or a string such as a time, to compare with.`);
        throw new StructuredQueryError(path, `Invalid ${path} ${describe(value)}. Expected a number, or a string such as a time, to compare with.`);
      default:
        if (typeof value === 'string') return value;
        if (typeof value === 'number' || typeof value === 'boolean') return String(value);
        if (absent(value)) throw new StructuredQueryError(path, `Missing ${path}. Expected the text to match, as a string.`);
        throw new StructuredQueryError(path, `Invalid ${path} ${describe(value)}. Expected the text to match, as a string.`);
    }
  }

  // ── Aggregations ────────────────────────────────────────────────────────────────────────

  aggregation(value: unknown, path: string): StructuredAggregation {
    const item = this.object(path, value);
    if (!item) throw new StructuredQueryError(path, `Missing ${path}. Expected an aggregation such as {"op": "avg", "field": "duration"}.`);
    if (absent(item.op) || item.op === '') throw new StructuredQueryError(`${path}.op`, `Missing ${path}.op. ${oneOf(AGGREGATION_OPS, '')}`);
    if (typeof item.op !== 'string') throw new StructuredQueryError(`${path}.op`, `Invalid ${path}.op ${describe(item.op)}. Expected an aggregation op as a string, such as "count".`);
    const lowered = item.op.toLowerCase();
    if (!(AGGREGATION_OPS as readonly string[]).includes(lowered)) {
      throw new StructuredQueryError(`${path}.op`, `Invalid ${path}.op ${describe(item.op)}. ${oneOf(AGGREGATION_OPS, lowered)}`);
    }
    const op = lowered as AggregationOp;
    const alias = this.optionalString(`${path}.alias`, item.alias);
    const field = this.aggregationField(op, item.field, `${path}.field`);
    const argument = this.argument(op, item.argument, `${path}.argument`);
    return { op, field, alias, label: alias ?? op, argument, path };
  }

  private aggregationField(op: AggregationOp, value: unknown, path: string): string | undefined {
    if (op === 'countif') return undefined;
    if (op === 'count') return absent(value) || value === '' || value === '*' ? undefined : this.name(path, value);
    if (absent(value) || value === '' || value === '*') throw new StructuredQueryError(path, `Missing ${path}. The ${op} aggregation needs the field it aggregates.`);
    return this.name(path, value);
  }

  private argument(op: AggregationOp, value: unknown, path: string): AggregationArgument {
    switch (op) {
      case 'topk':
        return { kind: 'number', value: this.wholeNumber(path, value, 1, 10_000, 10, 'k, the number of top values') };
      case 'histogram':
        return { kind: 'number', value: this.wholeNumber(path, value, 1, 100, 10, 'the number of buckets') };
      case 'makeset':
      case 'makelist':
        return absent(value) ? { kind: 'none' } : { kind: 'number', value: this.wholeNumber(path, value, 1, 1_048_576, 0, 'the most values to keep') };
      case 'percentiles':
        return this.percentiles(path, value);
      case 'argmin':
      case 'argmax':
        if (absent(value) || value === '') return { kind: 'fields', fields: [] };
        return { kind: 'fields', fields: typeof value === 'string' ? [value] : this.names(path, value) };
      case 'countif':
      case 'distinctif':
      case 'makesetif':
        if (absent(value)) throw new StructuredQueryError(path, `Missing ${path}. The ${op} aggregation needs its condition, a filter such as {"op": "==", "field": "status", "value": 500}.`);
        return { kind: 'condition', filter: this.filter(value, path, 1) };
      default:
        // The Go client sends `argument: null` with every aggregation; ops without one ignore it.
        return { kind: 'none' };
    }
  }

  private wholeNumber(path: string, value: unknown, min: number, max: number, fallback: number, what: string): number {
    if (absent(value)) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw new StructuredQueryError(path, `Invalid ${path} ${describe(value)}. Expected ${what}, a whole number from ${min} to ${max}.`);
    }
    return value;
  }

  private percentiles(path: string, value: unknown): AggregationArgument {
    const expected = 'Expected a percentile from 0 to 100, or an array of them, such as [50, 95, 99].';
    const percentile = (item: unknown, itemPath: string): number => {
      if (typeof item !== 'number' || !(item >= 0 && item <= 100)) throw new StructuredQueryError(itemPath, `Invalid ${itemPath} ${describe(item)}. ${expected}`);
      return item;
    };
    if (absent(value)) throw new StructuredQueryError(path, `Missing ${path}. ${expected}`);
    if (!Array.isArray(value)) return { kind: 'number', value: percentile(value, path) };
    // percentiles_array() takes at most 32 percentiles.
    if (value.length === 0 || value.length > 32) throw new StructuredQueryError(path, `Invalid ${path} ${describe(value)}: it has ${value.length} percentiles, expected 1 to 32.`);
    return { kind: 'numbers', values: value.map((item, index) => percentile(item, `${path}[${index}]`)) };
  }
}
