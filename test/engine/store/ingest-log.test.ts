import { appendFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IngestLog, recoverLog, type LoggedBatch } from '../../../src/engine/store/ingest-log.js';
import type { StagedBatch } from '../../../src/engine/store/staged-batch.js';
import { makeTempDir } from '../../helpers/local-service.js';

const root = makeTempDir('ingest-log');
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;

function staged(dir: string, name: string, count = 2): StagedBatch {
  const file = join(dir, name);
  writeFileSync(file, '{"r":0,"t":0,"n":0}\n'.repeat(count));
  return { file, count, maxLineBytes: 20, parts: [{ key: 'c0', field: 'a', storage: 'integer', types: ['integer'] }], sysTimeNs: 5n };
}

describe('the ingest log', () => {
  it('numbers concurrent appends in order, hands each over before it resolves, and reads them back', async () => {
    const dir = join(root, `log-${dirs++}`);
    const log = IngestLog.create(dir, 7n);
    const handed: bigint[] = [];
    const appends = Array.from({ length: 5 }, (_, index) =>
      log.append(`ds-${index}`, BigInt(index * 10), staged(dir, `b${index}.ndjson`), index % 2 === 0 ? { body: Buffer.from(`body ${index}`), recipe: { index } } : undefined, (entry) =>
        handed.push(entry.seq),
      ),
    );
    await Promise.all(appends);
    await log.close();
    expect(handed).toEqual([7n, 8n, 9n, 10n, 11n]);

    const recovered = recoverLog(dir);
    expect(recovered.nextSeq).toBe(12n);
    // Numbered as their files became durable, so in any order of datasets, but each once and consecutively.
    expect(recovered.batches.map((entry: LoggedBatch) => entry.seq)).toEqual([7n, 8n, 9n, 10n, 11n]);
    expect(recovered.batches.map((entry) => [entry.dataset, entry.firstRowId]).sort()).toEqual([
      ['ds-0', 0n],
      ['ds-1', 10n],
      ['ds-2', 20n],
      ['ds-3', 30n],
      ['ds-4', 40n],
    ]);
    const first = recovered.batches.find((entry) => entry.dataset === 'ds-0') as LoggedBatch;
    expect(first.batch).toEqual(staged(dir, 'b0.ndjson'));
    expect(first.source?.recipe).toEqual({ index: 0 });
    expect(readFileSync(first.source?.bodyFile as string, 'utf8')).toBe('body 0');
    expect(recovered.batches.find((entry) => entry.dataset === 'ds-1')?.source).toBeUndefined();
  });

  it('ignores a line cut short at the end of the newest segment (never acknowledged)', async () => {
    const dir = join(root, `log-${dirs++}`);
    const log = IngestLog.create(dir, 1n);
    await log.append('ds', 0n, staged(dir, 'a.ndjson'), undefined, () => undefined);
    await log.close();
    const [segment] = readdirSync(dir).filter((name) => name.startsWith('log-'));
    appendFileSync(join(dir, segment as string), '{"seq":"2","dataset":"ds","fi');
    expect(recoverLog(dir).batches.map((entry) => entry.seq)).toEqual([1n]);
  });

  it('refuses to replay a segment damaged before its last line', async () => {
    const dir = join(root, `log-${dirs++}`);
    const log = IngestLog.create(dir, 1n);
    await log.append('ds', 0n, staged(dir, 'a.ndjson'), undefined, () => undefined);
    await log.append('ds', 2n, staged(dir, 'b.ndjson'), undefined, () => undefined);
    await log.close();
    const segment = join(dir, readdirSync(dir).find((name) => name.startsWith('log-')) as string);
    writeFileSync(segment, readFileSync(segment, 'utf8').replace('"seq":"1"', '"seq":1"'));
    expect(() => recoverLog(dir)).toThrow(/is damaged at line 1; it cannot be replayed safely/);
  });

  it('refuses a staged file outside its directory', async () => {
    const dir = join(root, `log-${dirs++}`);
    const log = IngestLog.create(dir, 1n);
    await expect(log.append('ds', 0n, staged(root, 'elsewhere.ndjson'), undefined, () => undefined)).rejects.toThrow("must be written in the ingest log's directory");
    await log.close();
  });
});
