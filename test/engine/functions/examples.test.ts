import { describe, expect, it } from 'vitest';
import { AGGREGATIONS } from '../../../src/engine/aggregations/index.js';
import { FAMILIES } from '../../../src/engine/functions/index.js';
import type { Example } from '../../../src/engine/functions/types.js';
import { checkExample, useExampleStore } from '../helpers/examples.js';

/**
 * Every registry entry's examples, run through the real engine on real DuckDB: a function or
 * aggregation brings its tests with it. An entry without a runnable example fails here.
 */

const store = useExampleStore();

const label = (example: Example): string => ('query' in example ? example.query : 'error' in example ? `${example.apl} fails` : example.apl);

describe.each(FAMILIES.map((family) => [family.name, family] as const))('%s functions', (_name, family) => {
  describe.each(family.functions.map((def) => [def.name, def] as const))('%s', (name, def) => {
    it('has an example that runs', () => {
      expect(def.examples.some((example) => !('error' in example)), `${name} needs an example with a result`).toBe(true);
    });
    it.each(def.examples.map((example) => [label(example), example] as const))('%s', async (_label, example) => {
      await checkExample(store, example);
    });
  });
});

describe.each(AGGREGATIONS.map((def) => [def.name, def] as const))('aggregation %s', (name, def) => {
  it('has an example that runs', () => {
    expect(def.examples.some((example) => !('error' in example)), `${name} needs an example with a result`).toBe(true);
  });
  it.each(def.examples.map((example) => [label(example), example] as const))('%s', async (_label, example) => {
    await checkExample(store, example);
  });
});
