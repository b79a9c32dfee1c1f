import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useLocalService } from '../helpers/local-service.js';
import { launchBrowser, watchPage, type Browser } from './helpers/browser.js';
import { waitForCharts } from './helpers/chart.js';
import { createAnnotation, fixture, ingest } from './helpers/data.js';

/** Signing in, and saving several charts as a dashboard that the service keeps and the page reopens. */

const service = useLocalService();
let browser: Browser;

beforeAll(async () => {
  await ingest(service, 'web', fixture<object[]>('web-events.json'));
  await ingest(service, 'api', fixture<object[]>('api-events.json'));
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

async function signedIn(path = '/'): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(`${service.url}${path}#token=${service.token}`);
  await waitForCharts(page);
  return page;
}

function chart(page: Page, index: number) {
  return page.locator('.chart-panel').nth(index);
}

describe('signing in', () => {
  it('asks for the token, refuses one the service does not know, and opens the default chart with the right one', async () => {
    const page = await browser.context.newPage();
    const watched = watchPage(page);
    try {
      await page.goto(`${service.url}/`);
      const token = page.getByLabel('API token');
      await token.fill('xaat-not-a-known-token-0000000000');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.locator('#sign-in-error').textContent()).toMatch(/refused the token \(401\)/);
      expect(await page.evaluate(() => sessionStorage.getItem('timemark.token'))).toBeNull();

      await token.fill(service.token);
      await token.press('Enter');
      await waitForCharts(page);
      expect(await page.locator('#sign-in').isHidden()).toBe(true);
      // The first dataset, with the default query.
      expect(await page.locator('textarea.apl').inputValue()).toBe("['api'] | summarize count() by bin_auto(_time)");
      expect(await page.locator('.dataset-select').inputValue()).toBe('api');
      expect(watched.problems.filter((problem) => !problem.includes('401'))).toEqual([]);

      await page.getByRole('button', { name: 'Sign out' }).click();
      expect(await page.evaluate(() => sessionStorage.getItem('timemark.token'))).toBeNull();
      await expect.poll(() => page.locator('#sign-in').isVisible()).toBe(true);
    } finally {
      await page.close();
    }
  });
});

describe('saved dashboards', () => {
  let uid: string;

  it('saves several charts, their annotation choices, the range and the toggle, and reopens them', async () => {
    const page = await signedIn();
    try {
      await page.getByLabel('Name', { exact: true }).fill('Web overview');
      await chart(page, 0).locator('.dataset-select').selectOption('web');
      await page.waitForFunction(() => document.querySelector<HTMLTextAreaElement>('textarea.apl')?.value.startsWith("['web']"));
      await page.getByRole('button', { name: 'Add chart' }).click();
      const second = chart(page, 1);
      await second.getByLabel('Chart title').fill('Server errors');
      await second.getByLabel('APL query').fill("['web'] | where status >= 500 | summarize count() by bin_auto(_time)");
      await second.getByRole('button', { name: 'Run query' }).click();
      await second.locator('.annotation-picker summary').click();
      await second.getByRole('checkbox', { name: 'api' }).check();
      await page.getByLabel('Time range').selectOption('24h');
      await page.getByRole('switch', { name: 'Show annotations' }).uncheck();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await expect.poll(() => page.locator('#status').textContent()).toBe('Saved “Web overview” (version 1).');
      uid = new URL(page.url()).searchParams.get('dashboard') ?? '';
      expect(uid).not.toBe('');

      const saved = await service.axiom.dashboards.get(uid);
      expect(saved.version).toBe(1);
      expect(saved.dashboard).toMatchObject({
        name: 'Web overview',
        timeWindowStart: 'qr-now-24h',
        timeWindowEnd: 'qr-now',
        charts: [
          { name: 'web', type: 'TimeSeries', query: { apl: "['web'] | summarize count() by bin_auto(_time)" } },
          { name: 'Server errors', type: 'TimeSeries', query: { apl: "['web'] | where status >= 500 | summarize count() by bin_auto(_time)" } },
        ],
        annotations: { visible: false },
      });
      const charts = saved.dashboard.charts as { id: string }[];
      expect((saved.dashboard.annotations as { datasets: Record<string, string[]> }).datasets).toEqual({ [charts[1]!.id]: ['web', 'api'] });
    } finally {
      await page.close();
    }

    const reopened = await signedIn(`/?dashboard=${uid}`);
    try {
      expect(await reopened.locator('.chart-panel').count()).toBe(2);
      expect(await reopened.getByLabel('Name', { exact: true }).inputValue()).toBe('Web overview');
      expect(await chart(reopened, 1).getByLabel('Chart title').inputValue()).toBe('Server errors');
      expect(await chart(reopened, 1).getByLabel('APL query').inputValue()).toBe("['web'] | where status >= 500 | summarize count() by bin_auto(_time)");
      expect(await chart(reopened, 1).locator('.annotation-picker summary').textContent()).toBe('Annotations from: web, api');
      expect(await reopened.getByLabel('Time range').inputValue()).toBe('24h');
      expect(await reopened.getByRole('switch', { name: 'Show annotations' }).isChecked()).toBe(false);
    } finally {
      await reopened.close();
    }
  });

  it('opens a saved dashboard from the picker', async () => {
    const page = await signedIn();
    try {
      await page.getByLabel('Dashboard', { exact: true }).selectOption({ label: 'Web overview' });
      await page.waitForFunction(() => document.querySelectorAll('.chart-panel').length === 2);
      await waitForCharts(page);
      expect(new URL(page.url()).searchParams.get('dashboard')).toBe(uid);
      await expect.poll(() => page.locator('#status').textContent()).toBe('Opened dashboard “Web overview” (version 1).');
    } finally {
      await page.close();
    }
  });

  it('will not overwrite a newer version saved elsewhere, and offers to save as new', async () => {
    const page = await signedIn(`/?dashboard=${uid}`);
    try {
      const current = await service.axiom.dashboards.get(uid);
      const elsewhere = await fetch(`${service.url}/v2/dashboards/uid/${uid}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ dashboard: { ...current.dashboard, name: 'Renamed elsewhere' }, version: current.version }),
      });
      expect(elsewhere.status).toBe(200);

      await page.getByLabel('Name', { exact: true }).fill('Renamed here');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await expect.poll(() => page.locator('#page-error').textContent()).toMatch(/changed elsewhere since you opened it/);
      expect((await service.axiom.dashboards.get(uid)).dashboard.name).toBe('Renamed elsewhere');

      await page.getByRole('button', { name: 'Save as new' }).click();
      await expect.poll(() => page.locator('#status').textContent()).toBe('Saved “Renamed here” (version 1).');
      const copy = new URL(page.url()).searchParams.get('dashboard') ?? '';
      expect(copy).not.toBe(uid);
      expect((await service.axiom.dashboards.get(copy)).dashboard.name).toBe('Renamed here');
    } finally {
      await page.close();
    }
  });

  it('deletes the open dashboard once confirmed', async () => {
    const page = await signedIn(`/?dashboard=${uid}`);
    try {
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Delete' }).click();
      await expect.poll(() => page.locator('#status').textContent()).toBe('Dashboard deleted.');
      expect((await service.axiom.dashboards.list()).map((dashboard) => dashboard.uid)).not.toContain(uid);
      expect(await page.locator(`#dashboard-picker option[value="${uid}"]`).count()).toBe(0);
    } finally {
      await page.close();
    }
  });
});

describe('live refresh', () => {
  it('runs the query and fetches the annotations again on its interval, drawing what is new', async () => {
    const page = await browser.context.newPage();
    try {
      // Page timers run on a clock the test moves, so the interval passes without waiting for it.
      await page.clock.install();
      const link = new URLSearchParams({ apl: "['web'] | summarize count() by bin_auto(_time)", start: '2024-05-01T10:00:00Z', end: '2024-05-01T11:00:00Z' });
      await page.goto(`${service.url}/?${link.toString()}#token=${service.token}`);
      await waitForCharts(page);
      await page.getByLabel('Live refresh').selectOption('15');
      await expect.poll(() => page.locator('#status').textContent()).toBe('Live refresh: every 15 seconds.');

      const hotfix = await createAnnotation(service, { datasets: ['web'], type: 'deploy', time: '2024-05-01T10:45:30Z', title: 'Hotfix' });
      const marker = page.locator(`.annotation-marker[data-annotation-id="${hotfix.id}"]`);
      await page.clock.runFor(5_000);
      expect(await marker.count()).toBe(0);
      await page.clock.runFor(10_000);
      await marker.waitFor();

      await page.getByLabel('Live refresh').selectOption('0');
      await expect.poll(() => page.locator('#status').textContent()).toBe('Live refresh is off.');
    } finally {
      await page.close();
    }
  });
});
