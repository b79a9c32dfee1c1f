import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Annotation } from '../../src/common/annotation-contract.js';
import { httpWindowEvents } from '../helpers/http-window-events.js';
import { startLocalService, type LocalService } from '../helpers/local-service.js';
import { launchBrowser, saveScreenshot, watchPage, type Browser } from './helpers/browser.js';
import { waitForCharts } from './helpers/chart.js';
import { createAnnotation, ingest } from './helpers/data.js';

/**
 * "What did this deploy do?" in the dashboard, in headless Chromium against the real local
 * service: a deploy that doubled the error rate shows its verdict and figures in its details,
 * computed by the page through the public API; the DORA panel counts the recent deployments.
 */

const WINDOW_MS = 30 * 60_000;
const START_MS = Date.parse('2024-05-01T12:00:00.000Z');
const END_MS = START_MS + 5 * 60_000;
const DAY = 86_400_000;

let service: LocalService;
let browser: Browser;
let page: Page;
let watched: ReturnType<typeof watchPage>;
let regressed: Annotation;
let neutral: Annotation;

async function open(dataset: string): Promise<void> {
  const apl = `['${dataset}'] | summarize count() by bin_auto(_time)`;
  const query = new URLSearchParams({ apl, start: new Date(START_MS - 3_600_000).toISOString(), end: new Date(END_MS + 3_600_000).toISOString() });
  await page.goto(`${service.url}/?${query.toString()}#token=${service.token}`);
  await waitForCharts(page);
}

async function deploy(dataset: string, afterShare: number): Promise<Annotation> {
  const events = [
    ...httpWindowEvents({ startMs: START_MS - WINDOW_MS, endMs: START_MS, count: 3000, errorShare: 0.02, latencyMs: 100, seed: 1 }),
    ...httpWindowEvents({ startMs: END_MS, endMs: END_MS + WINDOW_MS, count: 3000, errorShare: afterShare, latencyMs: 100, seed: 3 }),
  ];
  for (let index = 0; index < events.length; index += 5000) await ingest(service, dataset, events.slice(index, index + 5000));
  return createAnnotation(service, {
    datasets: [dataset],
    type: 'deploy',
    title: `Deploy ${dataset} v2`,
    time: new Date(START_MS).toISOString(),
    endTime: new Date(END_MS).toISOString(),
    description: 'Rolled out v2\n[timemark outcome=success committed=2024-05-01T11:00:00.000Z]',
  });
}

beforeAll(async () => {
  service = await startLocalService();
  regressed = await deploy('web-regressed', 0.04);
  neutral = await deploy('web-neutral', 0.02);
  // The last days of web-neutral, for the DORA panel: two deploys, one failed, and a 30-minute incident.
  const now = Date.now();
  await createAnnotation(service, { datasets: ['web-neutral'], type: 'deploy', title: 'Recent deploy', time: new Date(now - 3 * DAY).toISOString(), endTime: new Date(now - 3 * DAY + 600_000).toISOString(), description: '[timemark outcome=success]' });
  await createAnnotation(service, { datasets: ['web-neutral'], type: 'deploy', title: 'Broken deploy', time: new Date(now - 2 * DAY).toISOString(), endTime: new Date(now - 2 * DAY + 600_000).toISOString(), description: '[timemark outcome=failure]' });
  await createAnnotation(service, { datasets: ['web-neutral'], type: 'incident', title: 'Checkout down', time: new Date(now - DAY).toISOString(), endTime: new Date(now - DAY + 1_800_000).toISOString() });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  watched = watchPage(page);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe("a deploy's details", () => {
  it('show the verdict of a deploy that doubled the error rate, with the figures before and after', async () => {
    await open('web-regressed');
    await page.locator(`.annotation-marker[data-annotation-id="${regressed.id}"]`).click();
    const card = page.locator('.annotation-card.pinned');
    await expect.poll(() => card.locator('[data-verdict]').textContent(), { timeout: 20_000 }).toBe('regressed');
    expect(await card.locator('.impact-heading').textContent()).toBe('Impact on web-regressed: regressed');
    const errorRow = card.locator('tr[data-signal="error rate"] > *');
    expect(await errorRow.allTextContents()).toEqual(['error rate (status)', '2.00% (60 of 3,000)', '4.00% (120 of 3,000)', '+100%', 'regressed']);
    expect(await card.locator('tr[data-signal="p95 latency"] > td').last().textContent()).toBe('no change');
    expect(await card.locator('.impact-window').textContent()).toBe('30 min before against 30 min after');
    // The facts line reads as facts, not as text.
    expect(await card.locator('.annotation-description').textContent()).toBe('Rolled out v2');
    expect(await card.locator('.annotation-facts').textContent()).toMatch(/^Outcome: success · committed /);
    await saveScreenshot(page, 'dashboard-impact-regressed.png');
    expect(watched.problems).toEqual([]);
  });

  it('measure nothing until the details are pinned, then say no change for a neutral deploy', async () => {
    await open('web-neutral');
    const marker = page.locator(`.annotation-marker[data-annotation-id="${neutral.id}"]`);
    await marker.hover();
    expect(await page.locator('.annotation-card .impact-status').textContent()).toBe('Click to measure its impact on web-neutral.');
    await marker.click();
    await expect.poll(() => page.locator('.annotation-card.pinned [data-verdict]').textContent(), { timeout: 20_000 }).toBe('no change');
    expect(watched.problems).toEqual([]);
  });
});

describe('the DORA panel', () => {
  it("counts the chart's recent deployments, failures and restores when opened, and lists what it counted", async () => {
    await open('web-neutral');
    await page.locator('#dora-panel > summary').click();
    const figure = (name: string) => page.locator(`.dora-figure[aria-label="${name}"]`);
    await expect.poll(() => figure('Change failure rate').locator('.dora-value').textContent(), { timeout: 20_000 }).toBe('50%');
    expect(await page.locator('#dora-panel input[type="text"]').inputValue()).toBe('web-neutral');
    expect(await figure('Deployment frequency').locator('.dora-detail').textContent()).toBe('2 deployments, 0.47 per week');
    expect(await figure('Time to restore').locator('.dora-value').textContent()).toBe('30 min');
    expect(await figure('Change lead time').locator('.dora-value').textContent()).toBe('not known');
    await figure('Change failure rate').locator('summary').click();
    expect(await figure('Change failure rate').locator('li.counted').allTextContents()).toEqual([expect.stringMatching(/^Counted: Broken deploy \(.+\): failed: outcome failure$/)]);
    await saveScreenshot(page, 'dashboard-dora.png');
    expect(watched.problems).toEqual([]);
  });
});
