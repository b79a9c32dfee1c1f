import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { ingestEvents } from '../../src/engine/ingest/ingest-events.js';
import { runTimemark } from '../helpers/child-process.js';
import { bundledMain } from '../helpers/cli-bundle.js';
import { useLocalService } from '../helpers/local-service.js';

const EVENTS = JSON.parse(readFileSync(new URL('../fixtures/engine/cli-events.json', import.meta.url), 'utf8')) as unknown[];
const RANGE = ['--start', '2024-01-01T00:00:00Z', '--end', '2024-01-02T00:00:00Z'];

const service = useLocalService();

beforeAll(async () => {
  await ingestEvents(service.service.events, 'cli-logs', EVENTS);
});

/** Runs the command as shipped (its bundle) in this process, as if stdout were a terminal `columns` wide. */
async function onTerminal(args: string[], columns = 120): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (text) => (out += `${text}\n`), err: (text) => (err += `${text}\n`), env: service.cliEnv, stdoutColumns: columns };
  const code = await bundledMain('query')(['query', ...args], io);
  return { code, out, err };
}

describe('timemark query', () => {
  it('prints the service’s JSON result when stdout is not a terminal', async () => {
    const result = await runTimemark(['query', "['cli-logs'] | summarize n = count() by service", ...RANGE], service.cliEnv);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as { format: string; tables: { columns: unknown[][] }[] };
    expect(body.format).toBe('tabular');
    expect(body.tables[0]?.columns).toEqual([
      ['api', 'web'],
      [2, 2],
    ]);
  });

  it('prints CSV with a header row, quoting commas, quotes and line breaks', async () => {
    const result = await runTimemark(['query', "['cli-logs'] | sort by _time asc | project status, note, tags", ...RANGE, '--format', 'csv'], service.cliEnv);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('status,note,tags\r\n200,plain,\r\n500,"has, a comma",\r\n200,"says ""hi""\nover two lines",\r\n404,,"[""a"",""b""]"\r\n');
  });

  it('prints a table on a terminal, numbers aligned right, and the status on stderr', async () => {
    const { code, out, err } = await onTerminal(["['cli-logs'] | summarize n = count(), avg(latency) by service | sort by service asc", ...RANGE]);
    expect(code).toBe(0);
    expect(out).toBe(['service  n  avg_latency', '───────  ─  ───────────', 'api      2       131.25', 'web      2        2.125', ''].join('\n'));
    expect(err).toMatch(/^2 rows · 4 of 4 events matched · [\d.]+ ms\n$/);
  });

  it('prints a time series and its totals as two tables', async () => {
    const { out } = await onTerminal(["['cli-logs'] | summarize count() by bin(_time, 2s)", ...RANGE]);
    expect(out).toContain('Table 0\n_time                 count_\n');
    expect(out).toContain('Totals\ncount_\n──────\n     4\n');
  });

  it('queries the last hour by default', async () => {
    const { out } = await onTerminal(["['cli-logs'] | count"]);
    expect(out).toBe('count\n─────\n    0\n');
  });

  it('shows a query error with a caret under its position and exits 2', async () => {
    const result = await runTimemark(['query', "['cli-logs']\n| where latncy > 10", ...RANGE], service.cliEnv);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("timemark query: line 2, column 9: unknown field 'latncy'; did you mean 'latency'?\n2 | | where latncy > 10\n  |         ^\n");
  });

  it('says what is missing or wrong in the command line', async () => {
    expect(await runTimemark(['query'], service.cliEnv)).toMatchObject({ code: 2, stderr: expect.stringContaining('timemark query: the APL text is missing; give it first') });
    expect(await runTimemark(['query', 'x | count', '--format', 'xml'], service.cliEnv)).toMatchObject({ code: 2, stderr: expect.stringContaining('Invalid --format "xml"; give one of table, json, csv, e.g. --format csv.') });
    expect(await runTimemark(['query', 'x | count'], { TIMEMARK_TOKEN: 'xaat-x' })).toMatchObject({ code: 2, stderr: expect.stringContaining('no service URL; pass --url or set TIMEMARK_URL') });
    expect(await runTimemark(['query', "['nope'] | count"], service.cliEnv)).toMatchObject({ code: 1, stderr: expect.stringContaining('answered 404: Dataset "nope" not found.') });
    expect(await runTimemark(['query', 'x | count', '--timeout', '-5'], service.cliEnv)).toMatchObject({ code: 2, stderr: expect.stringContaining('Invalid --timeout "-5": it is negative') });
    expect(await runTimemark(['query', 'x | count'], { TIMEMARK_URL: 'http://127.0.0.1:9', TIMEMARK_TOKEN: 'xaat-x' })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('nothing answers at http://127.0.0.1:9 (connection refused): is the service running?'),
    });
  });
});
