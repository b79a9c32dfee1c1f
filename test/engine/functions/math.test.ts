import { describe, expect, it } from 'vitest';
import { EXAMPLE_DATASETS, evaluate, expectClose, runQuery, useExampleStore } from '../helpers/examples.js';
import { ingestedRows, tableRows } from '../helpers/reference.js';

/**
 * Mathematical and rounding functions beyond their registry examples: every row of the example
 * data against JavaScript's Math, the domains where a result is null or NaN, and result types.
 */

const store = useExampleStore();
const ROWS = ingestedRows(EXAMPLE_DATASETS.get('sample-http-logs') ?? []);

async function perRow(expression: string): Promise<unknown[]> {
  const table = (await runQuery(store, `['sample-http-logs'] | sort by _time asc | project v = ${expression}`)).tables[0];
  return tableRows(table as never).map((row) => row.v);
}

const value = async (apl: string): Promise<unknown> => (await evaluate(store, apl)).value;
const ms = (r: Record<string, unknown>): number => r.req_duration_ms as number;
const bytes = (r: Record<string, unknown>): number => r.resp_body_size_bytes as number;
/** JSON has no NaN or infinity: results carry them as null. */
const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

describe('against JavaScript, row by row', () => {
  it.each([
    ['sqrt(req_duration_ms)', (r: Record<string, unknown>) => Math.sqrt(ms(r))],
    ['log(req_duration_ms)', (r: Record<string, unknown>) => Math.log(ms(r))],
    ['log10(resp_body_size_bytes)', (r: Record<string, unknown>) => (bytes(r) > 0 ? Math.log10(bytes(r)) : null)],
    ['log2(resp_body_size_bytes)', (r: Record<string, unknown>) => (bytes(r) > 0 ? Math.log2(bytes(r)) : null)],
    ['exp(req_duration_ms / 100)', (r: Record<string, unknown>) => Math.exp(ms(r) / 100)],
    ['exp2(resp_header_size_bytes / 100.0)', (r: Record<string, unknown>) => 2 ** ((r.resp_header_size_bytes as number) / 100)],
    ['pow(req_duration_ms, 1.5)', (r: Record<string, unknown>) => ms(r) ** 1.5],
    ['sin(req_duration_ms)', (r: Record<string, unknown>) => Math.sin(ms(r))],
    ['cos(req_duration_ms)', (r: Record<string, unknown>) => Math.cos(ms(r))],
    ['tan(req_duration_ms)', (r: Record<string, unknown>) => Math.tan(ms(r))],
    ['atan2(req_duration_ms, resp_header_size_bytes)', (r: Record<string, unknown>) => Math.atan2(ms(r), r.resp_header_size_bytes as number)],
    ['degrees(req_duration_ms)', (r: Record<string, unknown>) => (ms(r) * 180) / Math.PI],
    ['sign(req_duration_ms - 50)', (r: Record<string, unknown>) => Math.sign(ms(r) - 50)],
    ['round(req_duration_ms / 7, 3)', (r: Record<string, unknown>) => Math.round((ms(r) / 7) * 1000) / 1000],
    ['floor(req_duration_ms)', (r: Record<string, unknown>) => Math.floor(ms(r))],
    ['ceiling(req_duration_ms)', (r: Record<string, unknown>) => Math.ceil(ms(r))],
    ['max_of(req_duration_ms, resp_header_size_bytes, 100)', (r: Record<string, unknown>) => Math.max(ms(r), r.resp_header_size_bytes as number, 100)],
    ['min_of(resp_body_size_bytes, resp_header_size_bytes)', (r: Record<string, unknown>) => Math.min(bytes(r), r.resp_header_size_bytes as number)],
  ])('%s', async (expression, reference) => {
    expectClose(await perRow(expression), ROWS.map((r) => { const x = reference(r); return x === null ? null : finite(x); }), expression);
  });
});

describe('domains', () => {
  it.each([
    ['log(0)', null],
    ['log10(-5)', null],
    ['acos(1.5)', null],
    ['asin(-2)', null],
    ['gamma(0)', null],
    ['loggamma(-3)', null],
    ['cot(0)', null],
    ['sqrt(-4)', null],
    ['exp(1000)', null],
    ['isnan(sqrt(-4))', true],
    ['isinf(exp(1000))', true],
    ['isfinite(log(2))', true],
    ['isnan(real(null))', null],
  ])('%s is %j', async (apl, expected) => {
    expect(await value(apl)).toEqual(expected);
  });
});

describe('result types', () => {
  it.each([
    ['floor(2.7)', 'integer'],
    ['ceiling(2.1)', 'integer'],
    ['round(2.5)', 'float'],
    ['round(3)', 'integer'],
    ['sign(-3)', 'integer'],
    ['sign(-3.5)', 'float'],
    ['pow(2, 3)', 'float'],
    ['max_of(1, 2)', 'integer'],
    ['max_of(1, 2.0)', 'float'],
    ['range(1, 3)', 'array'],
    ['set_union(dynamic([1]), dynamic([2]))', 'array'],
    ['rand()', 'float'],
    ['rand(5)', 'integer'],
  ])('%s reports %s', async (apl, type) => {
    expect((await evaluate(store, apl)).type).toBe(type);
  });
});

describe('where APL differs from Kusto, APL wins', () => {
  it('floor and ceiling of a real are integers', async () => {
    expect(await evaluate(store, 'floor(-0.5)')).toEqual({ value: -1, type: 'integer' });
  });

  it('set_difference keeps what the first array has and the others lack', async () => {
    expect(await value('set_difference(dynamic([1, 2, 3]), dynamic([2, 3, 4, 5]))')).toEqual([1]);
  });
});

describe('rand', () => {
  it('stays in its range over many rows and draws different values', async () => {
    const table = (await runQuery(store, "['sample-http-logs'] | extend r = rand(), n = rand(3) | summarize min(r), max(r), min(n), max(n), dcount(r)")).tables[0];
    const [row] = tableRows(table as never);
    expect(row?.min_r as number).toBeGreaterThanOrEqual(0);
    expect(row?.max_r as number).toBeLessThan(1);
    expect(row?.min_n as number).toBeGreaterThanOrEqual(0);
    expect(row?.max_n as number).toBeLessThanOrEqual(2);
    expect(row?.dcount_r).toBeGreaterThan(1);
  });
});

describe('errors are found before any row is read', () => {
  it.each([
    ['sqrt("4")', 'sqrt() expects one of long, real as argument 1, got string'],
    ['pow(2)', 'pow() expects 2 arguments, got 1'],
    ['sqr(4)', "unknown function 'sqr'; did you mean 'sqrt'?"],
    ['range(1, datetime(2024-01-01))', 'range() needs arguments of one type, got long and datetime (argument 2)'],
    ['range(datetime(2024-01-01), datetime(2024-01-02), 1)', 'range() expects a timespan as argument 3, got long'],
    ['set_union(dynamic([1]), 2)', 'set_union() expects a dynamic as argument 2, got long'],
  ])('%s', async (apl, message) => {
    await expect(evaluate(store, apl)).rejects.toThrow(message);
  });
});
