import { describe, expect, it } from 'vitest';
import { annotationKind } from '../../src/common/annotation-kind.js';
import { fromDocument, toDocument, type DashboardSpec } from '../../src/dashboard/document.js';
import { queryLink, readPageLink, takeTokenFromFragment } from '../../src/common/dashboard-link.js';
import { defaultQuery, sourceDataset, withSource } from '../../src/dashboard/query-text.js';
import { toResultModel, type TabularResult } from '../../src/dashboard/tabular.js';
import { customRange, parseRfc3339, rangeFromWindow, rangeToWindow } from '../../src/dashboard/time-range.js';

/** The page's pure logic, without a browser: what it reads from results, queries, links and documents. */

function table(fields: TabularResult['tables'][number]['fields'], columns: unknown[][], extra: object = {}): TabularResult {
  return { format: 'tabular', tables: [{ name: '0', fields, columns, ...extra }] };
}

describe('turning a tabular result into a chart', () => {
  it('makes one series per group and aggregate, aligned on the union of times', () => {
    const result = table(
      [
        { name: '_time', type: 'datetime' },
        { name: 'status', type: 'integer' },
        { name: 'count_', type: 'integer', agg: { name: 'count' } },
      ],
      [
        ['2024-05-01T10:00:00Z', '2024-05-01T10:00:00Z', '2024-05-01T10:01:00.123456789Z'],
        [200, 500, 200],
        [7, 1, 9],
      ],
      { groups: [{ name: 'status' }] },
    );
    const model = toResultModel(result);
    expect(model).toEqual({
      kind: 'time-series',
      times: [Date.parse('2024-05-01T10:00:00Z') / 1000, Date.parse('2024-05-01T10:01:00.123Z') / 1000],
      series: [
        { label: 'status=200', values: [7, 9] },
        { label: 'status=500', values: [1, null] },
      ],
      bucketSeconds: undefined,
      integers: true,
    });
  });

  it('fills the empty buckets of a count with zeros, not of an average', () => {
    const range = { field: '_time', start: '2024-05-01T10:00:00Z', end: '2024-05-01T10:04:00Z' };
    const buckets = { field: '_time', size: 60e9 };
    const count = toResultModel(
      table([{ name: '_time', type: 'datetime' }, { name: 'count_', type: 'integer', agg: { name: 'count' } }], [['2024-05-01T10:01:00Z'], [3]], { range, buckets }),
    );
    expect(count.kind === 'time-series' && count.series[0]?.values).toEqual([0, 3, 0, 0]);
    const average = toResultModel(
      table([{ name: '_time', type: 'datetime' }, { name: 'avg_ms', type: 'float', agg: { name: 'avg' } }], [['2024-05-01T10:01:00Z'], [3.5]], { range, buckets }),
    );
    expect(average.kind === 'time-series' && average.series[0]?.values).toEqual([3.5]);
  });

  it('shows anything without _time and a number as a table, skipping the _totals companion', () => {
    const model = toResultModel({
      tables: [
        { name: '_totals', fields: [{ name: 'count_', type: 'integer' }], columns: [[10]] },
        { name: '0', fields: [{ name: 'path', type: 'string' }, { name: 'count_', type: 'integer' }], columns: [['/a', '/b'], [6, 4]] },
      ],
    });
    expect(model).toEqual({ kind: 'table', headers: ['path', 'count_'], rows: [['/a', '6'], ['/b', '4']], totalRows: 2 });
  });
});

describe('query text', () => {
  it.each([
    ["['web'] | count", 'web'],
    ['["my-logs"]\n| take 1', 'my-logs'],
    ['http_logs | take 1', 'http_logs'],
    ["// requests\n  ['it\\'s'] | count", "it's"],
    ['let x = 1; web | count', undefined],
    ['| count', undefined],
  ])('reads the dataset of %j', (apl, dataset) => {
    expect(sourceDataset(apl)).toBe(dataset);
  });

  it('swaps the source and keeps the rest, comments included', () => {
    expect(withSource("// mine\n['web'] | where status >= 500", 'api')).toBe("// mine\n['api'] | where status >= 500");
    expect(withSource('| count', 'api')).toBeUndefined();
    expect(defaultQuery("o'brien")).toBe("['o\\'brien'] | summarize count() by bin_auto(_time)");
  });
});

describe('links and ranges', () => {
  it('writes and reads the /?apl=&start=&end= scheme', () => {
    const link = queryLink("['web'] | count", Date.parse('2024-05-01T10:00:00Z'), Date.parse('2024-05-01T11:00:00Z'));
    expect(link).toBe('/?apl=%5B%27web%27%5D+%7C+count&start=2024-05-01T10%3A00%3A00.000Z&end=2024-05-01T11%3A00%3A00.000Z');
    expect(readPageLink(link.slice(1))).toEqual({ apl: "['web'] | count", start: '2024-05-01T10:00:00.000Z', end: '2024-05-01T11:00:00.000Z', dashboard: undefined });
  });

  it('takes the token out of the fragment and keeps the rest', () => {
    expect(takeTokenFromFragment('#token=xaat-abc&x=1')).toEqual({ token: 'xaat-abc', rest: '#x=1' });
    expect(takeTokenFromFragment('')).toEqual({ token: undefined, rest: '' });
  });

  it('accepts RFC 3339 ranges with any offset and nanoseconds, start before end', () => {
    expect(parseRfc3339('2024-05-01T12:00:00.123456789+02:00')).toBe(Date.parse('2024-05-01T10:00:00.123Z'));
    expect(parseRfc3339('yesterday')).toBeUndefined();
    expect(customRange('2024-05-01T11:00:00Z', '2024-05-01T10:00:00Z')).toBeUndefined();
    expect(rangeFromWindow('qr-now-24h', 'qr-now')).toEqual({ kind: 'preset', preset: '24h' });
    expect(rangeToWindow({ kind: 'preset', preset: '15m' })).toEqual({ timeWindowStart: 'qr-now-15m', timeWindowEnd: 'qr-now' });
  });
});

describe('annotation kinds', () => {
  const base = { id: 'ann_1', datasets: ['web'], time: '2024-05-01T10:00:00Z' };
  it.each([
    [{ ...base, type: 'deploy' }, 'point'],
    [{ ...base, type: 'deploy', endTime: '2024-05-01T10:05:00Z' }, 'span'],
    [{ ...base, type: 'monitor' }, 'open-span'],
    [{ ...base, type: 'deploy', description: 'Rolling out.\n[timemark:3f9a0c]' }, 'open-span'],
    [{ ...base, type: 'deploy', url: 'https://github.com/o/r/actions/runs/1#timemark-span=1.1.deploy' }, 'open-span'],
  ])('tells %j is a %s', (annotation, kind) => {
    expect(annotationKind(annotation)).toBe(kind);
  });
});

describe('the saved document', () => {
  it('round-trips the page’s dashboard through the hosted document shape', () => {
    const spec: DashboardSpec = {
      name: 'Ops',
      range: { kind: 'custom', startMs: Date.parse('2024-05-01T10:00:00Z'), endMs: Date.parse('2024-05-01T11:00:00Z') },
      refreshSeconds: 60,
      showAnnotations: false,
      charts: [
        { id: 'a', name: 'Requests', apl: "['web'] | count", annotationDatasets: undefined },
        { id: 'b', name: 'Errors', apl: "['web'] | where status >= 500", annotationDatasets: ['web', 'deploys'] },
      ],
    };
    const document = toDocument(spec);
    expect(document).toMatchObject({ schemaVersion: 2, timeWindowStart: '2024-05-01T10:00:00.000Z', charts: [{ id: 'a', type: 'TimeSeries', query: { apl: "['web'] | count" } }, { id: 'b' }] });
    expect(fromDocument(JSON.parse(JSON.stringify(document)) as Record<string, unknown>)).toEqual(spec);
  });
});
