import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError, PayloadTooLargeError } from '../../../src/common/errors.js';
import { createDecodePool } from '../../../src/engine/ingest/decode-pool.js';
import { INGEST_LIMITS } from '../../../src/engine/ingest/limits.js';
import { parseIngestOptions } from '../../../src/engine/ingest/options.js';
import { REPO_ROOT, run } from '../../helpers/child-process.js';

const dir = mkdtempSync(join(tmpdir(), 'timemark-decode-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = (name: string): Buffer => readFileSync(new URL(`../../fixtures/ingest/${name}`, import.meta.url));

describe('decode pool', () => {
  it('decodes bodies on worker threads and rejects with the same kinds of error as decoding in place', async () => {
    const pool = createDecodePool(2);
    try {
      const job = (body: Buffer, encoding: string, name: string) =>
        pool.decode({ body, options: parseIngestOptions({ contentType: 'application/x-ndjson', contentEncoding: encoding }), file: join(dir, name), nowMs: 0, limits: INGEST_LIMITS });
      const [decoded, bomb, garbage] = await Promise.allSettled([job(fixture('events.ndjson.gz'), 'gzip', 'a'), job(fixture('bomb.gz'), 'gzip', 'b'), job(Buffer.from('x'), 'zstd', 'c')]);
      expect(decoded.status === 'fulfilled' && decoded.value.batch.count).toBe(4);
      expect(bomb.status === 'rejected' && bomb.reason).toBeInstanceOf(PayloadTooLargeError);
      expect(garbage.status === 'rejected' && garbage.reason).toBeInstanceOf(InputError);
    } finally {
      await pool.close();
    }
  });

  it('stops idle workers and starts one again for the next body', async () => {
    const pool = createDecodePool(1, { idleMs: 20 });
    const job = (name: string) =>
      pool.decode({ body: Buffer.from('{"a":1}\n'), options: parseIngestOptions({ contentType: 'application/x-ndjson' }), file: join(dir, name), nowMs: 0, limits: INGEST_LIMITS });
    try {
      expect((await job('first')).batch.count).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await job('second')).batch.count).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('keeps the process alive while a decode is in flight, and lets it exit when idle', async () => {
    const script = `
      import { createDecodePool } from './build/src/engine/ingest/decode-pool.js';
      import { parseIngestOptions } from './build/src/engine/ingest/options.js';
      import { INGEST_LIMITS } from './build/src/engine/ingest/limits.js';
      const pool = createDecodePool(1);
      const decoded = await pool.decode({ body: Buffer.from('{"a":1}\\n'), options: parseIngestOptions({ contentType: 'application/x-ndjson' }), file: ${JSON.stringify(join(dir, 'alive.ndjson'))}, nowMs: 0, limits: INGEST_LIMITS });
      console.log('decoded', decoded.batch.count);`;
    const result = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT });
    expect(result).toMatchObject({ code: 0, stdout: 'decoded 1\n' });
  });
});
