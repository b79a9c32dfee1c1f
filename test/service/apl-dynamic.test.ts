import { beforeAll, describe, expect, it } from 'vitest';
import { useLocalService } from '../helpers/local-service.js';
import { serviceApi } from '../helpers/service-api.js';

/**
 * Dynamic values over HTTP on the real local service: JSON arrays ingested into a dataset come
 * back as arrays — not their text — through project, extend, indexing, summarize and the array,
 * bag and series functions, checked against the same computation in JavaScript.
 */

interface Span {
  _time: string;
  span_id: string;
  service: string;
  tags: string[];
  latencies: (number | null)[];
  events: { name: string; attributes: Record<string, unknown> | null }[];
}

const SPANS: Span[] = Array.from({ length: 24 }, (_, i) => ({
  _time: new Date(Date.UTC(2024, 4, 1, 12, 0, i)).toISOString(),
  span_id: `s${String(i).padStart(2, '0')}`,
  service: ['cart', 'checkout', 'frontend'][i % 3] as string,
  tags: ['a', 'b', 'c', 'd'].slice(0, 1 + (i % 4)),
  latencies: Array.from({ length: 1 + (i % 5) }, (_, j) => (j === 1 && i % 2 === 0 ? null : (i * 7 + j * 3) % 11) as number | null),
  events: Array.from({ length: i % 3 }, (_, j) => ({ name: j === 0 ? 'Enqueued' : 'Sent', attributes: j === 0 ? { 'retry.count': i } : null })),
}));

const WINDOW = { startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-02T00:00:00Z' };
const service = useLocalService();
const api = serviceApi(service);

beforeAll(async () => {
  await api.ingest('spans', SPANS as unknown as Record<string, unknown>[]);
});

interface Table {
  fields: { name: string; type: string }[];
  columns: unknown[][];
}

/** The rows of a query's first table, by column name, and its fields' reported types. */
async function query(apl: string): Promise<{ rows: Record<string, unknown>[]; types: Record<string, string> }> {
  const reply = await api.call('POST', '/v1/datasets/_apl?format=tabular', { apl, ...WINDOW });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const table = (reply.body.tables as Table[])[0] as Table;
  const rows = (table.columns[0] ?? []).map((_, row) => Object.fromEntries(table.fields.map((field, column) => [field.name, table.columns[column]?.[row]])));
  return { rows, types: Object.fromEntries(table.fields.map((field) => [field.name, field.type])) };
}

/** The spans in ingest order (the order of make_list) or by span id. */
const bySpan = (a: { span_id: string }, b: { span_id: string }): number => a.span_id.localeCompare(b.span_id);

describe('ingested arrays are values', () => {
  it('come back as arrays from project, with the array type', async () => {
    const { rows, types } = await query("['spans'] | project span_id, tags, latencies, events | sort by span_id asc");
    expect(rows).toEqual(SPANS.map(({ span_id, tags, latencies, events }) => ({ span_id, tags, latencies, events })));
    expect(types).toMatchObject({ tags: 'array', latencies: 'array', events: 'array' });
  });

  it('are indexed by position (negative from the end) and by key, through extend', async () => {
    const { rows } = await query(
      "['spans'] | extend first = tags[0], last = tags[-1], event = events[0].name, retries = events[0]['attributes']['retry.count'], missing = tags[9] | project span_id, first, last, event, retries, missing | sort by span_id asc",
    );
    expect(rows).toEqual(
      SPANS.map((s) => ({
        span_id: s.span_id,
        first: s.tags[0],
        last: s.tags[s.tags.length - 1],
        event: s.events[0]?.name ?? null,
        retries: s.events[0]?.attributes?.['retry.count'] ?? null,
        missing: null,
      })),
    );
  });

  it('are filtered on with array functions', async () => {
    const { rows } = await query("['spans'] | where array_length(tags) >= 3 and array_index_of(tags, 'c') == 2 | project span_id | sort by span_id asc");
    expect(rows.map((r) => r.span_id)).toEqual(SPANS.filter((s) => s.tags.length >= 3).map((s) => s.span_id));
  });

  it('are collected whole by make_list and make_set, and as elements by make_set of an element', async () => {
    const { rows } = await query("['spans'] | summarize lists = make_list(tags), sets = make_set(tags), firsts = make_set(tostring(events[0].name)) by service | sort by service asc");
    const services = ['cart', 'checkout', 'frontend'];
    expect(rows).toEqual(
      services.map((service) => {
        const spans = SPANS.filter((s) => s.service === service);
        const distinct = [...new Map(spans.map((s) => [JSON.stringify(s.tags), s.tags])).values()];
        const firsts = [...new Set(spans.map((s) => s.events[0]?.name ?? ''))];
        return { service, lists: spans.map((s) => s.tags), sets: distinct, firsts };
      }),
    );
  });

  it('go through the array and bag functions as arrays and objects', async () => {
    const { rows } = await query(
      "['spans'] | project span_id, reversed = array_reverse(tags), sorted = array_sort_desc(tags), joined = strcat_array(tags, '+'), sliced = array_slice(tags, 1, 3), packed = pack_array(span_id, array_length(events)), bag = bag_pack('id', span_id, 'tags', tags), keys = bag_keys(events[0].attributes) | sort by span_id asc",
    );
    expect(rows).toEqual(
      SPANS.map((s) => ({
        span_id: s.span_id,
        reversed: [...s.tags].reverse(),
        sorted: [...s.tags].sort().reverse(),
        joined: s.tags.join('+'),
        sliced: s.tags.slice(1, 3),
        packed: [s.span_id, s.events.length],
        bag: { id: s.span_id, tags: s.tags },
        keys: s.events[0]?.attributes ? Object.keys(s.events[0].attributes) : null,
      })),
    );
  });

  it('feed the series functions, nulls and all', async () => {
    const { rows, types } = await query(
      "['spans'] | project span_id, total = series_sum(latencies), filled = series_fill_const(latencies, -1), doubled = series_multiply(latencies, 2), above = series_greater(latencies, 5) | sort by span_id asc",
    );
    expect(types).toMatchObject({ total: 'float', filled: 'array', doubled: 'array', above: 'array' });
    expect(rows).toEqual(
      SPANS.map((s) => ({
        span_id: s.span_id,
        total: s.latencies.reduce<number>((sum, x) => sum + (x ?? 0), 0),
        filled: s.latencies.map((x) => x ?? -1),
        doubled: s.latencies.map((x) => (x === null ? null : x * 2)),
        above: s.latencies.map((x) => (x === null ? null : x > 5)),
      })),
    );
  });

  it('come out of make-series into the series functions', async () => {
    const { rows } = await query(
      "['spans'] | make-series n = count() default = 0 on _time from datetime(2024-05-01T12:00:00Z) to datetime(2024-05-01T12:00:24Z) step 1s by service | project service, total = series_sum(n), smooth = series_fir(n, dynamic([1, 1, 1])), top = series_stats_dynamic(n)['max'] | sort by service asc",
    );
    expect(rows).toEqual(
      ['cart', 'checkout', 'frontend'].map((service, index) => {
        const counts = SPANS.map((_, second) => (second % 3 === index ? 1 : 0));
        const smooth = counts.map((_, i) => [0, 1, 2].reduce((sum, j) => sum + (counts[i - j] ?? 0), 0) / 3);
        return { service, total: 8, smooth, top: 1 };
      }),
    );
  });

  it('are built by dynamic literals and compared whole', async () => {
    const { rows } = await query("['spans'] | where tags == dynamic(['a', 'b']) | project span_id, literal = dynamic([1, 'x', {'k': [true]}]) | sort by span_id asc");
    expect(rows).toEqual(SPANS.filter((s) => s.tags.length === 2).map((s) => ({ span_id: s.span_id, literal: [1, 'x', { k: [true] }] })));
  });

  it('refuse a function of arrays given a string, as the client’s error', async () => {
    const reply = await api.call('POST', '/v1/datasets/_apl?format=tabular', { apl: "['spans'] | extend n = array_length(span_id)", ...WINDOW });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain('array_length() expects a dynamic as argument 1, got string');
  });

  it('come back whole from arg_max, named as asked and reported as arrays', async () => {
    const { rows, types } = await query("['spans'] | summarize arg_max(array_length(tags), widest = tags, events) by service | sort by service asc");
    expect(types).toMatchObject({ widest: 'array', events: 'array' });
    expect(rows).toEqual(
      ['cart', 'checkout', 'frontend'].map((service) => {
        const spans = SPANS.filter((s) => s.service === service);
        const best = spans.reduce((a, b) => (b.tags.length > a.tags.length ? b : a));
        return { service, max_: best.tags.length, widest: best.tags, events: best.events };
      }),
    );
  });

  it('keep the ingest order in make_list across rows sorted otherwise', async () => {
    const { rows } = await query("['spans'] | sort by span_id desc | summarize ids = make_list(span_id)");
    expect(rows).toEqual([{ ids: [...SPANS].sort(bySpan).map((s) => s.span_id) }]);
  });
});
