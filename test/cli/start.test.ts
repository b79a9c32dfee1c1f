/**
 * `npm start` (timemark start) as a new user meets it: the "Try it" commands it prints, run as
 * printed from the same directory, put sample events, a deploy span (through the bridge) and a
 * point (through the annotation API) into the dashboard's default view: the default query's
 * window holds them all, and the printed dashboard link, opened in Chromium, draws them. Needs the
 * built CLI, curl, openssl and Chromium.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultQuery } from '../../src/dashboard/query-text.js';
import { DEFAULT_RANGE, resolveRange } from '../../src/dashboard/time-range.js';
import { secretVariable } from '../../webhook-server/src/config.js';
import { SOURCE_NAMES } from '../../webhook-server/src/sources/types.js';
import { exited, REPO_ROOT, run, startTimemark } from '../helpers/child-process.js';
import { makeTempDir } from '../helpers/local-service.js';
import { launchBrowser, saveScreenshot, watchPage } from '../dashboard/helpers/browser.js';
import { eventually } from '../webhook-server/helpers/bridge.js';

describe('timemark start', () => {
  const serviceDir = makeTempDir('start-service');
  const bridgeDir = makeTempDir('start-bridge');
  afterAll(() => {
    rmSync(serviceDir, { recursive: true, force: true });
    rmSync(bridgeDir, { recursive: true, force: true });
  });

  it('prints commands that, run as printed, show events, a deploy span and a point in the dashboard’s last hour', { timeout: 60_000 }, async () => {
    // A clone after npm ci: the CLI is not on PATH.
    const path = (process.env.PATH ?? '').split(':').filter((dir) => !existsSync(join(dir, 'timemark'))).join(':');
    const started = await startTimemark(
      ['start', '--port', '0', '--bridge-port', '0', '--data-dir', serviceDir, '--bridge-data-dir', bridgeDir],
      /Try it, from this directory[^\n]*\n((?: {2}.*\n)+)Then open the dashboard.*\n/,
      { PATH: path },
    );
    try {
      const output = started.output();
      const serviceUrl = /local service listening on (\S+)/.exec(output)?.[1] as string;
      const token = readFileSync(join(serviceDir, 'token'), 'utf8').trim();
      expect(output).toContain(`dashboard: ${serviceUrl}/#token=${token}`);
      expect(output).toMatch(/Timemark bridge listening on http:\/\/127\.0\.0\.1:\d+/);
      for (const source of SOURCE_NAMES) expect(output).toMatch(new RegExp(`\\n {4}${secretVariable(source)}=[\\w-]{24}\\n`));

      const commands = (started.match[1] as string).split('\n').filter((line) => line !== '');
      expect(commands.map((line) => line.trim().split(' ')[0])).toEqual(['export', `secret="$(cat`, './bin/timemark.js', 'curl', 'curl', './bin/timemark.js']);
      const tried = await run('sh', ['-c', commands.join('\n')], { env: { PATH: path }, cwd: REPO_ROOT });
      expect(tried.code, tried.stderr).toBe(0);
      const eventCount = readFileSync(join(serviceDir, 'samples', 'events.ndjson'), 'utf8').trim().split('\n').length;
      expect(tried.stdout).toContain(`Ingested ${eventCount.toLocaleString('en-US')} events into "demo"`);
      expect(tried.stdout.match(/"status":"accepted"/g)).toHaveLength(2);
      expect(tried.stdout).toMatch(/"type": "feature-flag"/);

      // What the dashboard shows when it opens: its default query of the dataset over its default range.
      const { startMs, endMs } = resolveRange(DEFAULT_RANGE, Date.now());
      const window = { start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString() };
      const api = async (path: string, body?: unknown): Promise<any> => {
        const response = await fetch(`${serviceUrl}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        expect(response.status).toBe(200);
        return response.json();
      };
      expect((await api('/v2/datasets')).map((dataset: { name: string }) => dataset.name)).toEqual(['demo']);
      const chart = await api('/v1/datasets/_apl?format=tabular', { apl: defaultQuery('demo'), startTime: window.start, endTime: window.end });
      const [series, totals] = chart.tables;
      expect(totals.columns.at(-1)).toEqual([eventCount]);
      expect(series.columns[0].length).toBeGreaterThan(40);

      const annotations = await eventually(async () => {
        const listed = await api(`/v2/annotations?datasets=demo&start=${window.start}&end=${window.end}`);
        return listed.length === 2 && listed.every((annotation: { type: string; endTime?: string }) => annotation.type !== 'deploy' || annotation.endTime) ? listed : undefined;
      }, 'the span and the point');
      const span = annotations.find((annotation: { type: string }) => annotation.type === 'deploy');
      const point = annotations.find((annotation: { type: string }) => annotation.type === 'feature-flag');
      expect(span).toMatchObject({ datasets: ['demo'], title: expect.stringContaining('Deploy example/sample-app to production') });
      expect(Date.parse(span.endTime) - Date.parse(span.time)).toBe(8 * 60_000);
      expect(Date.parse(span.time)).toBeGreaterThan(startMs);
      expect(point).toMatchObject({ datasets: ['demo'], title: 'Checkout v2 switched on' });
      expect(point.endTime).toBeUndefined();
      expect(Date.parse(point.time)).toBeGreaterThan(startMs);

      // The printed link, clicked: the page charts the events and draws the span and the point.
      const browser = await launchBrowser();
      try {
        const page = await browser.context.newPage();
        const watched = watchPage(page);
        await page.goto(/dashboard: (\S+)/.exec(output)?.[1] as string);
        await expect.poll(() => page.locator('.plot-summary').textContent(), { timeout: 15_000 }).toMatch(/^1 series \(count_\) over \d+ time buckets\. 2 annotations from demo\.$/);
        expect(await page.locator('.plot-area canvas').count()).toBeGreaterThan(0);
        expect(await page.locator(`.annotation-marker.span[data-annotation-id="${span.id}"]`).count()).toBe(1);
        expect(await page.locator(`.annotation-marker.point[data-annotation-id="${point.id}"]`).count()).toBe(1);
        await saveScreenshot(page, 'start-first-run.png');
        expect(watched.problems).toEqual([]);
      } finally {
        await browser.close();
      }
    } finally {
      started.child.kill('SIGTERM');
      expect(await exited(started.child)).toBe(0);
    }
  });
});
