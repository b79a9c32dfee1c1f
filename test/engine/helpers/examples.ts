import { readFileSync, readdirSync } from 'node:fs';
import { expect } from 'vitest';
import { AplError } from '../../../src/engine/apl/errors.js';
import type { Example } from '../../../src/engine/functions/types.js';
import { runApl } from '../../../src/engine/query/run-apl.js';
import type { TabularResult } from '../../../src/engine/results/tabular.js';
import type { JsonValue } from '../../../src/engine/results/values.js';
import { useTestStore, type TestEventStore } from '../../helpers/event-store.js';
import { tableRows } from './reference.js';

/**
 * The example datasets (test/fixtures/engine/examples/<dataset>.json, named as in Axiom's
 * playground) in a real store, and the runner of registry examples through the whole engine:
 * parse → check → plan → SQL → DuckDB → results.
 */

const DIRECTORY = new URL('../../fixtures/engine/examples/', import.meta.url);

/** The events of each example dataset, in ingest order. */
export const EXAMPLE_DATASETS: ReadonlyMap<string, readonly Record<string, unknown>[]> = new Map(
  readdirSync(DIRECTORY)
    .filter((file) => file.endsWith('.json'))
    .map((file) => [file.slice(0, -'.json'.length), JSON.parse(readFileSync(new URL(file, DIRECTORY), 'utf8')) as Record<string, unknown>[]]),
);

/** Every example query runs in this window, at this `now()`. */
export const EXAMPLE_WINDOW = { startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-02T00:00:00Z' };
const NOW = 1_714_608_000_000_000_000n; // 2024-05-02T00:00:00Z

/** A store holding the example datasets, for one test file. */
export function useExampleStore(): TestEventStore {
  return useTestStore(async (store) => {
    for (const [name, events] of EXAMPLE_DATASETS) await store.load(name, events);
  });
}

export async function runQuery(store: TestEventStore, apl: string): Promise<TabularResult> {
  const { result } = await runApl({ apl, format: 'tabular', ...EXAMPLE_WINDOW }, { reader: store.store, now: () => NOW });
  return result as TabularResult;
}

/** An expression's value, evaluated on the newest row of `sample-http-logs` (whose fields it may name). */
export async function evaluate(store: TestEventStore, apl: string): Promise<{ value: JsonValue; type: string | undefined }> {
  const table = (await runQuery(store, expressionQuery(apl))).tables[0];
  return { value: (table?.columns[0]?.[0] ?? null) as JsonValue, type: table?.fields[0]?.type };
}

function expressionQuery(apl: string): string {
  return `['sample-http-logs'] | take 1 | project result = ${apl}`;
}

/** Runs one example and asserts its documented outcome. */
export async function checkExample(store: TestEventStore, example: Example): Promise<void> {
  if ('error' in example) {
    const failure = await runQuery(store, expressionQuery(example.apl)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure, `${example.apl} should fail the check`).toBeInstanceOf(AplError);
    expect((failure as AplError).message.replace(/^line \d+, column \d+: /, '')).toBe(example.error);
    return;
  }
  if ('query' in example) {
    const table = (await runQuery(store, example.query)).tables[0];
    expectClose(table ? tableRows(table) : [], example.rows, example.query);
    return;
  }
  const { value, type } = await evaluate(store, example.apl);
  expectClose(value, example.result, example.apl);
  if (example.type !== undefined) expect(type, `the type of ${example.apl}`).toBe(example.type);
}

/** Deep equality where numbers may differ in their last bits (reals computed by DuckDB and by hand). */
export function expectClose(actual: unknown, expected: unknown, what: string): void {
  expect(roundReals(actual), what).toEqual(roundReals(expected));
}

function roundReals(value: unknown): unknown {
  if (typeof value === 'number' && !Number.isInteger(value)) return Number(value.toPrecision(12));
  if (Array.isArray(value)) return value.map(roundReals);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, roundReals(inner)]));
  return value;
}
