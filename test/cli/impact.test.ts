import { beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Annotation } from '../../src/common/annotation-contract.js';
import type { ImpactResult } from '../../src/impact/impact.js';
import { runTimemark } from '../helpers/child-process.js';
import { httpWindowEvents } from '../helpers/http-window-events.js';
import { useLocalService } from '../helpers/local-service.js';
import { serviceApi } from '../helpers/service-api.js';

const service = useLocalService();
const WINDOW_MS = 30 * 60_000;
const START_MS = Date.parse('2024-05-01T12:00:00.000Z');
const END_MS = START_MS + 5 * 60_000;
const deploys: Record<string, Annotation> = {};

async function deployOn(dataset: string, afterShare: number): Promise<Annotation> {
  const api = serviceApi(service);
  await api.ingest(dataset, httpWindowEvents({ startMs: START_MS - WINDOW_MS, endMs: START_MS, count: 3000, errorShare: 0.02, latencyMs: 100, seed: 1 }));
  await api.ingest(dataset, httpWindowEvents({ startMs: END_MS, endMs: END_MS + WINDOW_MS, count: 3000, errorShare: afterShare, latencyMs: 100, seed: 3 }));
  return service.annotations.create({ datasets: [dataset], type: 'deploy', title: 'Deploy v2', time: new Date(START_MS).toISOString(), endTime: new Date(END_MS).toISOString() });
}

/** The command in this process, as if stdout were a terminal `columns` wide. */
async function onTerminal(args: string[], columns = 160): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (text) => (out += `${text}\n`), err: (text) => (err += `${text}\n`), env: service.cliEnv, stdoutColumns: columns };
  const code = await main(args, io);
  return { code, out, err };
}

beforeAll(async () => {
  deploys.doubled = await deployOn('cli-doubled', 0.04);
  deploys.neutral = await deployOn('cli-neutral', 0.02);
});

describe('timemark impact', () => {
  it('prints the whole result as JSON when stdout is not a terminal, and exits 3 on a regression', async () => {
    const result = await runTimemark(['impact', deploys.doubled?.id ?? ''], service.cliEnv);
    expect(result.code, result.stderr).toBe(3);
    const impact = JSON.parse(result.stdout) as ImpactResult;
    expect(impact).toMatchObject({ verdict: 'regressed', dataset: 'cli-doubled', window: '30m' });
    expect(impact.signals.map((signal) => [signal.name, signal.verdict])).toEqual([
      ['error rate', 'regressed'],
      ['p95 latency', 'no change'],
    ]);
  });

  it('exits 0 when nothing regressed', async () => {
    const result = await runTimemark(['impact', deploys.neutral?.id ?? ''], service.cliEnv);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ verdict: 'no change' });
  });

  it('prints a table on a terminal: the verdict, each signal before and after, and the rules', async () => {
    const { code, out } = await onTerminal(['impact', deploys.doubled?.id ?? '']);
    expect(code).toBe(3);
    const lines = out.split('\n');
    expect(lines[0]).toBe(`Impact of deploy "Deploy v2" (${deploys.doubled?.id}) on cli-doubled: REGRESSED`);
    expect(lines[1]).toBe('30 min before (2024-05-01T11:30:00.000Z to 2024-05-01T12:00:00.000Z) against 30 min after (2024-05-01T12:05:00.000Z to 2024-05-01T12:35:00.000Z)');
    expect(out).toMatch(/\nsignal +before +after +change +verdict +test\n/);
    expect(out).toMatch(/\nerror rate \(status\) +2\.00% \(60 of 3,000\) +4\.00% \(120 of 3,000\) +\+100% +regressed +z-test, p = 5\.6e-6 \(α 0\.005\)\n/);
    expect(out).toContain('error rate (status): regressed: it rose (p = 5.6e-6 < α = 0.005).');
    expect(out).toContain('  rate: two-proportion test of the share of events that match');
  });

  it('compares the signals given, over the window given', async () => {
    const { code, out } = await onTerminal(['impact', deploys.doubled?.id ?? '', '--signal', 'countif(level == "error")', '--signal', 'count()', '--window', '15m', '--format', 'json']);
    expect(code).toBe(3);
    const impact = JSON.parse(out) as ImpactResult;
    expect(impact.window).toBe('15m');
    expect(impact.signals.map((signal) => [signal.name, signal.rule, signal.verdict])).toEqual([
      ['countif(level == "error")', 'rate', 'regressed'],
      ['count()', 'buckets', 'no change'],
    ]);
    expect(impact.signals[0]?.before).toMatchObject({ matching: 30, events: 1500 });
  });

  it('says what was wrong with the command line, with exit code 2', async () => {
    expect(await onTerminal(['impact'])).toMatchObject({ code: 2, err: 'timemark impact: the annotation id is missing; give it first, e.g. timemark impact ann_1a2b3c.\n' });
    expect(await onTerminal(['impact', 'ann_x', '--window', '30'])).toMatchObject({ code: 2, err: 'timemark impact: Invalid --window "30". Expected a duration such as "90m", "24h" or "2d".\n' });
    expect((await onTerminal(['impact', deploys.doubled?.id ?? '', '--signal', 'count() | take 1'])).err).toMatch(/^timemark impact: Invalid signal 1 "count\(\) \| take 1": "\|" outside parentheses\./);
  });

  it('exits 1 with the service\'s answer when the annotation does not exist', async () => {
    const { code, err } = await onTerminal(['impact', 'ann_doesnotexist']);
    expect(code).toBe(1);
    expect(err).toMatch(/^timemark impact: .*404.*not found/);
  });
});
