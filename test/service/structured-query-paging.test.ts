import { describe, expect, it } from 'vitest';
import { useLocalService } from '../helpers/local-service.js';

/**
 * Paging with `limit`, `includeCursor` and `cursor` while events keep arriving: every event that
 * was there when paging began is seen exactly once, none twice, in order. The events share their
 * `_time` in fours, so pages split ties, which only the row id orders.
 */

const START_MS = Date.parse('2024-01-01T00:00:00Z');
const WINDOW = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };
const ORIGINAL = 400;
const PAGE = 7;

const service = useLocalService();

async function post(path: string, body: unknown): Promise<any> {
  const response = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${service.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  expect(response.status, JSON.stringify(json)).toBe(200);
  return json;
}

const at = (seconds: number): string => new Date(START_MS + seconds * 1000).toISOString();

/** Late events: before all, on the times of existing events (ties), between them, after all. */
function lateEvents(batch: number): Record<string, unknown>[] {
  return [0, 13, 50.5, 99, 120].map((seconds, i) => ({ _time: at(seconds + (batch % 3) * 7), seq: 10_000 + batch * 10 + i, late: true }));
}

function position(rowId: string): [bigint, bigint] {
  const [time, row] = rowId.split(/-(?=\d+$)/);
  return [BigInt(time as string), BigInt(row as string)];
}

describe('paging under concurrent ingest', () => {
  it.each([
    ['newest first', true],
    ['oldest first', false],
  ])('sees every event present at the start exactly once, %s', async (label, desc) => {
    const dataset = `paging-${desc ? 'desc' : 'asc'}`;
    const original = Array.from({ length: ORIGINAL }, (_, seq) => ({ _time: at(1 + Math.floor(seq / 4) / 4), seq }));
    await post(`/v1/datasets/${dataset}/ingest`, original);

    const seen: { seq: number; rowId: string }[] = [];
    let cursor = '';
    let batch = 0;
    for (let pages = 0; pages < 1000; pages++) {
      const [page] = await Promise.all([
        post(`/v1/datasets/${dataset}/query`, { ...WINDOW, limit: PAGE, includeCursor: true, cursor, order: [{ field: '_time', desc }] }),
        post(`/v1/datasets/${dataset}/ingest`, lateEvents(batch++)),
      ]);
      seen.push(...page.matches.map((match: { data: { seq: number }; _rowId: string }) => ({ seq: match.data.seq, rowId: match._rowId })));
      cursor = page.status.continuationToken;
      if (cursor === '') break;
    }

    expect(cursor, label).toBe('');
    const originals = seen.filter((row) => row.seq < 10_000).map((row) => row.seq);
    expect(originals.sort((a, b) => a - b)).toEqual(Array.from({ length: ORIGINAL }, (_, seq) => seq));
    expect(new Set(seen.map((row) => row.rowId)).size).toBe(seen.length);
    for (let i = 1; i < seen.length; i++) {
      const [previousTime, previousRow] = position(seen[i - 1]?.rowId as string);
      const [time, row] = position(seen[i]?.rowId as string);
      const ordered = desc ? time < previousTime || (time === previousTime && row < previousRow) : time > previousTime || (time === previousTime && row > previousRow);
      expect(ordered, `${seen[i - 1]?.rowId} then ${seen[i]?.rowId}`).toBe(true);
    }
    expect(batch).toBeGreaterThan(ORIGINAL / PAGE);
  });
});
