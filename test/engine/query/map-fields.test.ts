import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runApl } from '../../../src/engine/query/run-apl.js';
import type { TabularResult } from '../../../src/engine/results/tabular.js';
import { useTestStore } from '../../helpers/event-store.js';
import { tableRows } from '../helpers/reference.js';

/**
 * Map fields through the whole engine: events ingested with `attributes.custom` and `geo` as map
 * fields (test/fixtures/engine/map-field-events.json), then read with the notations of the APL
 * reference's map fields page. The same events ingested without map fields are flattened, as
 * before; the expected values are written out by hand.
 */

const EVENTS = JSON.parse(readFileSync(new URL('../../fixtures/engine/map-field-events.json', import.meta.url), 'utf8')) as unknown[];
const WINDOW = { startTime: '2024-03-01T00:00:00Z', endTime: '2024-03-02T00:00:00Z' };

const fixture = useTestStore(async (store) => {
  await store.load('mapped', EVENTS, { mapFields: ['attributes.custom', 'geo'] });
  await store.load('flat', EVENTS);
});

async function rows(apl: string): Promise<Record<string, unknown>[]> {
  const { result } = await runApl({ apl, format: 'tabular', ...WINDOW }, { reader: fixture.store });
  return tableRows((result as TabularResult).tables[0] as never);
}

describe('ingest with map fields', () => {
  it('keeps a map field whole, as one object field, whether it came nested or under its dotted name', () => {
    const fields = fixture.store.schema('mapped')?.fields.map((field) => [field.name, field.storage, field.types]);
    expect(fields).toEqual(
      expect.arrayContaining([
        ['attributes.custom', 'json', ['object']],
        ['geo', 'json', ['object']],
      ]),
    );
    expect(fields?.some(([name]) => String(name).startsWith('geo.') || String(name).startsWith('attributes.custom.'))).toBe(false);
  });

  it('flattens the same events into a field per key in a dataset without map fields', () => {
    const names = fixture.store.schema('flat')?.fields.map((field) => field.name);
    expect(names).toEqual(expect.arrayContaining(['geo.city', 'geo.country', 'attributes.custom.http.protocol', 'attributes.custom.user.tier']));
    expect(names).not.toContain('geo');
  });
});

describe('APL over map fields', () => {
  it('reads a key with index notation, dots and all in the key', async () => {
    expect(await rows("mapped | where ['attributes.custom']['http.protocol'] == 'HTTP/1.1' | project service")).toEqual([{ service: 'frontend' }]);
    expect(await rows("mapped | sort by _time asc | project p = tostring(['attributes.custom']['http.protocol'])")).toEqual([{ p: 'HTTP/1.1' }, { p: 'HTTP/2' }, { p: '' }]);
  });

  it('reads keys with dot notation and with both notations mixed', async () => {
    expect(await rows('mapped | where geo.city == "Osaka" | project service')).toEqual([{ service: 'cart' }]);
    expect(await rows("mapped | where ['geo'].country == 'France' | project service")).toEqual([{ service: 'frontend' }]);
    expect(await rows("mapped | where isnotnull(['attributes.custom'].user.tier) | project tier = tostring(attributes.custom.user.tier)")).toEqual([{ tier: 'gold' }]);
  });

  it('tells a map field from the flattened field of the same spelling', async () => {
    // In the flattened dataset `geo.city` is a field of its own; there is no `geo` to index.
    expect(await rows("flat | where ['geo.city'] == 'Lima' | project service")).toEqual([{ service: 'checkout' }]);
    await expect(rows("flat | project ['geo']['city']")).rejects.toThrow(/unknown field 'geo'/);
  });

  it('finds events with and without the map field, and converts a key to a number', async () => {
    expect(await rows("mapped | where isnotnull(['attributes.custom']) | count")).toEqual([{ count: 2 }]);
    expect(await rows("mapped | where isnull(['attributes.custom']) | project service")).toEqual([{ service: 'checkout' }]);
    expect(await rows("mapped | extend amount = todouble(['attributes.custom']['app.payment.amount']) | where isnotnull(amount) | project service, amount")).toEqual([
      { service: 'frontend', amount: 12.5 },
    ]);
  });

  it('takes a map apart with bag functions and mv-expand', async () => {
    expect(await rows("mapped | where service == 'cart' | project keys = bag_keys(['attributes.custom']), has = bag_has_key(['attributes.custom'], 'retries')")).toEqual([
      { keys: ['http.protocol', 'retries'], has: true },
    ]);
    expect(await rows("mapped | where service == 'cart' | mv-expand kind=array pair = ['attributes.custom'] | project pair")).toEqual([
      { pair: ['http.protocol', 'HTTP/2'] },
      { pair: ['retries', 3] },
    ]);
    expect(await rows("mapped | summarize count() by city = tostring(geo.city) | sort by city asc")).toEqual([
      { city: 'Lima', count_: 1 },
      { city: 'Osaka', count_: 1 },
      { city: 'Paris', count_: 1 },
    ]);
  });

  it('writes a map field whole as text and as a result value', async () => {
    expect(await rows("mapped | where service == 'checkout' | project geo, text = tostring(geo)")).toEqual([{ geo: { city: 'Lima' }, text: '{"city":"Lima"}' }]);
  });
});
