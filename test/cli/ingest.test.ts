import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { httpLogs } from '../../bench/lib/http-logs.mjs';
import type { CliIo } from '../../src/cli/io.js';
import { run, runTimemark, TIMEMARK_BIN } from '../helpers/child-process.js';
import { bundledMain } from '../helpers/cli-bundle.js';
import { useLocalService } from '../helpers/local-service.js';

const fixture = (name: string): string => new URL(`../fixtures/ingest/${name}`, import.meta.url).pathname;
/** `timemark ingest …` as shipped, with an io of the test's own. */
const ingest = (args: string[], io: CliIo): Promise<number> => bundledMain('ingest')(['ingest', ...args], io);
const workDir = mkdtempSync(join(tmpdir(), 'timemark-cli-ingest-'));

const service = useLocalService();

afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
});

async function count(dataset: string): Promise<number> {
  const schema = service.service.events.schema(dataset);
  if (!schema) return 0;
  return service.service.events.read({ timeoutMs: 10_000, maxRows: 1 }, async (sql) => Number((await sql(`SELECT count(*) FROM ${schema.table}`, [])).columns[0]?.[0]));
}

describe('timemark ingest', () => {
  it('sends NDJSON, gzip NDJSON, JSON arrays and CSV files in batches, and exits 1 naming where events failed', async () => {
    const result = await runTimemark(['ingest', 'cli-files', fixture('events.ndjson'), fixture('events.ndjson.gz'), fixture('events.json'), '--batch-size', '2'], service.cliEnv);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^Ingested 11 events into "cli-files" in [\d.]+ s \([\d,]+ events\/s\); 5 failed\.\n$/);
    // Each failure names the batch's place in its file and the service's place in the batch.
    expect(result.stderr).toContain('events.ndjson, lines 3–5: Line 2 is not valid JSON');
    expect(result.stderr).toContain('events.ndjson.gz, lines 6–7: Line 1: Field "_time" has the value "yesterday"');
    expect(result.stderr).toContain('events.json, events 3–4: Line 1 is the string "not an object"');
    expect(await count('cli-files')).toBe(11);
  });

  it('reads CSV with its delimiter, repeats the header in every batch, and adds labels', async () => {
    const rows = Array.from({ length: 25 }, (_, i) => `${i};"multi\nline ${i}"`).join('\n');
    const file = join(workDir, 'rows.csv');
    writeFileSync(file, `n;text\n${rows}\n`);
    const result = await runTimemark(['ingest', 'cli-csv', file, '--csv-delimiter', ';', '--batch-size', '10', '--label', 'service.cliEnv=prod', '--label', 'team=core'], service.cliEnv);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(await count('cli-csv')).toBe(25);
    expect(service.service.events.schema('cli-csv')?.fields.map((field) => field.name)).toEqual(['_time', '_sysTime', 'n', 'text', 'service.cliEnv', 'team']);
  });

  it('reads standard input, gzip or not, as NDJSON unless --format says otherwise', async () => {
    const ndjson = [...httpLogs({ count: 1200 })].map((event) => JSON.stringify(event)).join('\n');
    const plain = await run(process.execPath, [TIMEMARK_BIN, 'ingest', 'cli-stdin', '--batch-size', '500'], { env: { PATH: process.env.PATH, ...service.cliEnv }, input: ndjson });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^Ingested 1,200 events into "cli-stdin"/);
    const csv = await run(process.execPath, [TIMEMARK_BIN, 'ingest', 'cli-stdin-csv', '-', '--format', 'csv'], { env: { PATH: process.env.PATH, ...service.cliEnv }, input: 'a,b\n1,2\n' });
    expect(csv.code).toBe(0);
    expect(await count('cli-stdin')).toBe(1200);
    expect(await count('cli-stdin-csv')).toBe(1);
    const io = { out: () => undefined, err: () => undefined, env: service.cliEnv, stdin: () => Readable.from([gzipSync('{"z":1}\n{"z":2}\n')]) };
    expect(await ingest(['cli-stdin-gzip'], io)).toBe(0);
    expect(await count('cli-stdin-gzip')).toBe(2);
  });

  it('draws a progress line on a terminal and clears it before the summary', async () => {
    const file = join(workDir, 'many.ndjson');
    writeFileSync(file, [...httpLogs({ count: 3000 })].map((event) => JSON.stringify(event)).join('\n'));
    const drawn: string[] = [];
    const out: string[] = [];
    const io = { out: (text: string) => void out.push(text), err: () => undefined, env: service.cliEnv, terminal: { write: (text: string) => void drawn.push(text), columns: 120 } };
    expect(await ingest(['cli-progress', file, '--batch-size', '1000', '--concurrency', '1'], io)).toBe(0);
    expect(drawn[0]).toMatch(/^\r\u001b\[2K\[#*\.*\] +\d+%  1,000 events sent  [\d,]+ events\/s  0 failed$/);
    expect(drawn.at(-1)).toBe('\r\u001b[2K');
    expect(out).toEqual([expect.stringMatching(/^Ingested 3,000 events into "cli-progress"/)]);
  });

  it('says what was wrong with the command line, and exits 2', async () => {
    const cases: [string[], RegExp][] = [
      [['ingest'], /the dataset name is missing; give it first/],
      [['ingest', 'x', 'notes.txt'], /Cannot tell the format of "notes\.txt" from its name/],
      [['ingest', 'x', join(workDir, 'missing.ndjson')], /Cannot read ".*missing\.ndjson": no such file/],
      [['ingest', 'x', '--format', 'xml'], /Invalid --format "xml"; give one of ndjson, json, csv/],
      [['ingest', 'x', '--batch-size', '20000'], /Invalid --batch-size 20000; give at most 10000/],
      [['ingest', 'x', '--label', 'novalue'], /Invalid --label "novalue"; give KEY=VALUE/],
      [['ingest', 'x', '--concurrency', '-2'], /Invalid --concurrency "-2": it is negative/],
      [['ingest', 'x', '--batch-size'], /--batch-size needs a value; give one, e.g. --batch-size 5000/],
    ];
    for (const [args, message] of cases) {
      const result = await runTimemark(args, service.cliEnv);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const noUrl = await runTimemark(['ingest', 'x', fixture('events.json')], {});
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/no service URL; pass --url or set TIMEMARK_URL/);
  });

  it('exits 1 with the service message when a request is refused', async () => {
    const result = await runTimemark(['ingest', 'cli-refused', fixture('events.json'), '--timestamp-format', 'nonsense'], service.cliEnv);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Invalid timestamp-format "nonsense"/);
  });
});
