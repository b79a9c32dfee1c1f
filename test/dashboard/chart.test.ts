import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../helpers/local-service.js';
import { launchBrowser, saveScreenshot, watchPage, type Browser } from './helpers/browser.js';
import { chartData, columnColor, isColor, lineColumnColor, positionOf, waitForCharts } from './helpers/chart.js';
import type { Annotation } from '../../src/common/annotation-contract.js';
import { createAnnotation, fixture, ingest } from './helpers/data.js';

/**
 * The dashboard page in headless Chromium against the real local service: events and
 * annotations go in over the HTTP API, the page draws them, and the tests read the result off
 * uPlot (valToPos) and the canvas pixels.
 */

const START = '2024-05-01T10:00:00.000Z';
const END = '2024-05-01T11:00:00.000Z';
const QUERY = "['web'] | summarize count() by bin_auto(_time)";
const BAND_ALPHA = 0.16;
const COLORS = { deploy: '#1d4ed8', incident: '#b45309', monitor: '#c81e1e' };

const webEvents = fixture<{ _time: string }[]>('web-events.json');

let service: LocalService;
let browser: Browser;
let page: Page;
let watched: ReturnType<typeof watchPage>;
const annotations: Record<string, Annotation> = {};

function queryPath(apl = QUERY): string {
  return `/?${new URLSearchParams({ apl, start: START, end: END }).toString()}`;
}

async function open(target: Page, path = queryPath()): Promise<void> {
  await target.goto(`${service.url}${path}#token=${service.token}`);
  await waitForCharts(target);
}

function marker(target: Page, annotation: Annotation) {
  return target.locator(`.annotation-marker[data-annotation-id="${annotation.id}"]`);
}

beforeAll(async () => {
  service = await startLocalService();
  await ingest(service, 'web', webEvents);
  await ingest(service, 'api', fixture<object[]>('api-events.json'));
  const [flag, deploy, incident, monitor, apiDeploy] = await Promise.all(
    fixture<object[]>('annotations.json').map((annotation) => createAnnotation(service, annotation)),
  ).then((created) => {
    const byTitle = (title: string) => created.find((annotation) => annotation.title === title) as Annotation;
    return [byTitle('Flag with a script link'), byTitle('Deploy web v1.4.0'), byTitle('Checkout errors'), byTitle('Error rate above 5%'), byTitle('Deploy api v2.0.1')];
  });
  Object.assign(annotations, { flag, deploy, incident, monitor, apiDeploy });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  watched = watchPage(page);
  await open(page);
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe('the chart', () => {
  it('draws the ingested events as counts per time bucket', async () => {
    const data = await chartData(page);
    const expected = new Map<number, number>();
    for (const event of webEvents) {
      const minute = Math.floor(Date.parse(event._time) / 60_000) * 60;
      expected.set(minute, (expected.get(minute) ?? 0) + 1);
    }
    const counts = data.series[0] ?? [];
    const drawn = new Map(data.times.map((time, index) => [time, counts[index]]));
    for (const [minute, count] of expected) expect(drawn.get(minute), `bucket ${new Date(minute * 1000).toISOString()}`).toBe(count);
    expect(counts.reduce((sum: number, count) => sum + (count ?? 0), 0)).toBe(webEvents.length);
    expect(data.labels).toEqual(['count_']);
    await expect.poll(() => page.locator('.plot-summary').textContent()).toMatch(/1 series \(count_\)/);
  });

  it('signs in from the #token link, keeps the token out of the address bar and out of every URL it requests', async () => {
    expect(page.url()).not.toContain('token');
    expect(await page.evaluate(() => sessionStorage.getItem('timemark.token'))).toBe(service.token);
    expect(watched.requestedUrls.length).toBeGreaterThan(4);
    for (const url of watched.requestedUrls) expect(url).not.toContain(service.token);
    expect(watched.problems).toEqual([]);
  });

  it('opens the query of a link with its range, and links back to it in the same scheme', async () => {
    await expect.poll(() => page.locator('textarea.apl').inputValue()).toBe(QUERY);
    expect(await page.locator('#time-range').inputValue()).toBe('custom');
    const href = await page.locator('.query-link').getAttribute('href');
    const params = new URL(href ?? '', service.url).searchParams;
    expect([params.get('apl'), params.get('start'), params.get('end')]).toEqual([QUERY, START, END]);
  });
});

describe('annotations on the chart', () => {
  it('puts a point annotation at uPlot’s position for its time, as a line and as a marker', async () => {
    const at = await positionOf(page, annotations.deploy!.time);
    const box = await marker(page, annotations.deploy!).boundingBox();
    expect(box).not.toBeNull();
    expect(Math.abs(box!.x + box!.width / 2 - (at.overLeft + at.css))).toBeLessThanOrEqual(1);
    const columns = await lineColumnColor(page, at.canvas);
    expect(columns.some((color) => isColor(color, COLORS.deploy, 1))).toBe(true);
    const beside = await columnColor(page, at.canvas + 12);
    expect(beside[3]).toBe(0);
  });

  it('shades a span as a band between its start and end', async () => {
    const start = await positionOf(page, annotations.incident!.time);
    const end = await positionOf(page, annotations.incident!.endTime!);
    for (const fraction of [0.15, 0.55, 0.75]) {
      const inside = await columnColor(page, start.canvas + (end.canvas - start.canvas) * fraction);
      expect(isColor(inside, COLORS.incident, BAND_ALPHA), `inside at ${fraction}: ${inside.join(',')}`).toBe(true);
    }
    expect((await columnColor(page, end.canvas + 10))[3]).toBe(0);
    expect((await columnColor(page, start.canvas - 10))[3]).toBe(0);
  });

  it('runs an open span from its start to the right edge of the plot', async () => {
    const start = await positionOf(page, annotations.monitor!.time);
    const rightEdge = start.bbox.left + start.bbox.width - 3;
    expect(isColor(await columnColor(page, rightEdge), COLORS.monitor, BAND_ALPHA)).toBe(true);
    expect(isColor(await columnColor(page, (start.canvas + rightEdge) / 2), COLORS.monitor, BAND_ALPHA)).toBe(true);
    expect((await columnColor(page, start.canvas - 10))[3]).toBe(0);
  });

  it('shows title, type, time, extent and link on hover', async () => {
    const card = page.locator('.annotation-card');
    const at = await positionOf(page, annotations.deploy!.time);
    await page.mouse.move(at.overLeft + at.css, at.overTop + at.overHeight / 2);
    await expect.poll(() => card.textContent()).toMatch(/deploy\s*Deploy web v1\.4\.0[\s\S]*Point in time[\s\S]*Rolled out by CI/);
    expect(await card.locator('time').getAttribute('datetime')).toBe(annotations.deploy!.time);
    expect(await card.locator('a').getAttribute('href')).toBe('https://github.com/example/web/pull/42');

    const span = await positionOf(page, '2024-05-01T10:36:30Z');
    await page.mouse.move(span.overLeft + span.css, span.overTop + span.overHeight / 2);
    await expect.poll(() => card.textContent()).toMatch(/incident\s*Checkout errors[\s\S]*Lasted 10 min/);

    const open = await positionOf(page, '2024-05-01T10:58:00Z');
    await page.mouse.move(open.overLeft + open.css, open.overTop + open.overHeight / 2);
    await expect.poll(() => card.textContent()).toMatch(/monitor\s*Error rate above 5%[\s\S]*Ongoing, no end yet/);
    await page.mouse.move(0, 0);
    await expect.poll(() => card.isHidden()).toBe(true);
  });

  it('pins the details on click, and never turns a javascript: url into a link', async () => {
    await marker(page, annotations.flag!).click();
    const card = page.locator('.annotation-card.pinned');
    await expect.poll(() => card.textContent()).toContain('Link: javascript:alert(document.domain)');
    expect(await card.locator('a').count()).toBe(0);
    expect(await marker(page, annotations.flag!).getAttribute('aria-expanded')).toBe('true');
    await card.getByRole('button', { name: 'Close annotation details' }).click();
    await expect.poll(() => card.count()).toBe(0);
  });

  it('hides and shows them with the “Show annotations” toggle', async () => {
    const toggle = page.getByRole('switch', { name: 'Show annotations' });
    const at = await positionOf(page, annotations.incident!.time);
    const inBand = at.canvas + 20;
    await toggle.uncheck();
    expect((await columnColor(page, inBand))[3]).toBe(0);
    await expect.poll(() => marker(page, annotations.deploy!).isHidden()).toBe(true);
    await expect.poll(() => page.locator('.plot-summary').textContent()).toMatch(/4 annotations from web, hidden/);
    await toggle.check();
    expect(isColor(await columnColor(page, inBand), COLORS.incident, BAND_ALPHA)).toBe(true);
    await expect.poll(() => marker(page, annotations.deploy!).isVisible()).toBe(true);
  });

  it('draws only the datasets picked, by default the charted one', async () => {
    await expect.poll(() => marker(page, annotations.apiDeploy!).count()).toBe(0);
    await page.locator('.annotation-picker summary').click();
    const web = page.getByRole('checkbox', { name: 'web' });
    const api = page.getByRole('checkbox', { name: 'api' });
    expect([await web.isChecked(), await api.isChecked()]).toEqual([true, false]);

    await api.check();
    await marker(page, annotations.apiDeploy!).waitFor();
    const at = await positionOf(page, annotations.apiDeploy!.time);
    const box = await marker(page, annotations.apiDeploy!).boundingBox();
    expect(Math.abs(box!.x + box!.width / 2 - (at.overLeft + at.css))).toBeLessThanOrEqual(1);

    await web.uncheck();
    await marker(page, annotations.deploy!).waitFor({ state: 'detached' });
    expect(await page.locator('.annotation-marker').count()).toBe(1);
    const last = watched.requestedUrls.filter((url) => url.includes('/v2/annotations')).at(-1) ?? '';
    expect(new URL(last).searchParams.get('datasets')).toBe('api');

    await web.check();
    await api.uncheck();
    await marker(page, annotations.deploy!).waitFor();
    await page.locator('.annotation-picker summary').click();
  });
});

describe('query errors', () => {
  it('shows the service’s error with its line and column, under the query', async () => {
    const bad = "['web']\n| where nosuchfield > 1\n| summarize count() by bin_auto(_time)";
    const reply = await fetch(`${service.url}/v1/datasets/_apl?format=tabular`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ apl: bad, startTime: START, endTime: END }),
    });
    expect(reply.status).toBe(400);
    const { detail } = (await reply.json()) as { detail: { line: number; column: number; message: string } };

    await page.locator('textarea.apl').fill(bad);
    await page.getByRole('button', { name: 'Run query' }).click();
    const error = page.locator('.query-error');
    await error.waitFor();
    await expect.poll(() => error.textContent()).toContain(detail.message);
    await expect.poll(() => error.textContent()).toContain(`At line ${detail.line}, column ${detail.column}.`);
    const frame = (await error.locator('.code-frame').textContent()) ?? '';
    const [sourceLine, caretLine] = frame.split('\n');
    expect(sourceLine).toBe(`${detail.line} | ${bad.split('\n')[detail.line - 1]}`);
    expect(caretLine?.indexOf('^')).toBe(`${detail.line} | `.length + detail.column - 1);
    expect(await page.locator('textarea.apl').getAttribute('aria-invalid')).toBe('true');

    await page.locator('textarea.apl').fill(QUERY);
    await page.locator('textarea.apl').press('Control+Enter');
    await error.waitFor({ state: 'hidden' });
    expect(await page.locator('textarea.apl').getAttribute('aria-invalid')).toBeNull();
  });
});

describe('readable at 1280×800 and on a phone', () => {
  it('saves a desktop screenshot with an open span’s details pinned', async () => {
    await marker(page, annotations.monitor!).click();
    const path = await saveScreenshot(page, 'dashboard-desktop.png');
    expect(path).toMatch(/dashboard-desktop\.png$/);
    await page.keyboard.press('Escape');
  });

  it('fits a 390×844 phone screen without sideways scrolling, annotations still in place', async () => {
    const phone = await browser.context.newPage();
    try {
      await phone.setViewportSize({ width: 390, height: 844 });
      await open(phone);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const plot = await phone.locator('.plot-area canvas').boundingBox();
      expect(plot!.x).toBeGreaterThanOrEqual(0);
      expect(plot!.x + plot!.width).toBeLessThanOrEqual(390);
      const at = await positionOf(phone, annotations.deploy!.time);
      const box = await marker(phone, annotations.deploy!).boundingBox();
      expect(Math.abs(box!.x + box!.width / 2 - (at.overLeft + at.css))).toBeLessThanOrEqual(1);
      expect(box!.width).toBeGreaterThanOrEqual(24);
      await saveScreenshot(phone, 'dashboard-phone.png');
    } finally {
      await phone.close();
    }
  });
});

describe('keyboard only', () => {
  let keys: Page;

  /** What has the focus: its id, or its first class, or its tag. */
  async function focused(target: Page): Promise<{ what: string; outline: string; hasName: boolean }> {
    return target.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      if (!element || element === document.body) return { what: 'body', outline: 'none', hasName: false };
      const style = getComputedStyle(element);
      const what = element.id && !/-\d+$/.test(element.id) ? element.id : (element.classList[0] ?? element.tagName.toLowerCase());
      const labelled =
        (element as HTMLInputElement).labels?.length ||
        element.getAttribute('aria-label') ||
        (element.tagName !== 'INPUT' && element.tagName !== 'SELECT' && element.tagName !== 'TEXTAREA' && (element.textContent ?? '').trim() !== '');
      return { what, outline: `${style.outlineStyle} ${style.outlineWidth}`, hasName: Boolean(labelled) };
    });
  }

  async function tabTo(target: Page, what: string): Promise<void> {
    for (let step = 0; step < 60; step++) {
      await target.keyboard.press('Tab');
      if ((await focused(target)).what === what) return;
    }
    throw new Error(`Tab never reached ${what}.`);
  }

  beforeAll(async () => {
    keys = await browser.context.newPage();
    await open(keys);
  });
  afterAll(async () => {
    await keys.close();
  });

  it('reaches every control in reading order, each named and with a visible focus ring', async () => {
    const order: string[] = [];
    for (let step = 0; step < 80 && order.at(-1) !== 'add-chart'; step++) {
      await keys.keyboard.press('Tab');
      const now = await focused(keys);
      expect(now.outline, `focus ring of ${now.what}`).toMatch(/^(solid|auto) ([2-9]|\d\d)/);
      expect(now.hasName, `name of ${now.what}`).toBe(true);
      // Tab also walks the day, month, year… fields inside one date-time input.
      const inside = now.what === order.at(-1) && now.what.startsWith('range-');
      if (!inside) order.push(now.what);
    }
    expect(order).toEqual([
      'skip-link',
      'dashboard-picker',
      'dashboard-name',
      'save-dashboard',
      'sign-out',
      'time-range',
      'range-start',
      'range-end',
      'apply-range',
      'live-refresh',
      'refresh-now',
      'show-annotations',
      'chart-name',
      'query-link',
      'remove-chart',
      'dataset-select',
      'summary',
      'apl',
      'run-query',
      'annotation-marker',
      'annotation-marker',
      'annotation-marker',
      'annotation-marker',
      'add-chart',
    ]);
  });

  it('has labelled controls with the roles assistive technology expects', async () => {
    for (const [role, name] of [
      ['combobox', 'Dashboard'],
      ['combobox', 'Time range'],
      ['combobox', 'Live refresh'],
      ['switch', 'Show annotations'],
      ['combobox', 'Dataset'],
      ['textbox', 'APL query'],
      ['textbox', 'Chart title'],
      ['button', 'Run query'],
      ['group', 'Annotations on this chart'],
    ] as const) {
      expect(await keys.getByRole(role, { name, exact: true }).count(), `${role} "${name}"`).toBe(1);
    }
    const unnamed = await keys.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('#app button, #app input, #app select, #app textarea')]
        .filter((element) => !(element as HTMLInputElement).labels?.length && !element.getAttribute('aria-label') && (element.textContent ?? '').trim() === '')
        .map((element) => element.outerHTML.slice(0, 80)),
    );
    expect(unnamed).toEqual([]);
  });

  it('toggles annotations, opens and closes their details, skips to the charts and runs a query, all from the keyboard', async () => {
    await keys.reload();
    await waitForCharts(keys);
    await keys.keyboard.press('Tab');
    expect((await focused(keys)).what).toBe('skip-link');
    await keys.keyboard.press('Enter');
    expect((await focused(keys)).what).toBe('charts');

    await tabTo(keys, 'remove-chart');
    await keys.keyboard.press('Shift+Tab');
    await keys.keyboard.press('Shift+Tab');
    await keys.keyboard.press('Shift+Tab');
    expect((await focused(keys)).what).toBe('show-annotations');
    await keys.keyboard.press('Space');
    await expect.poll(() => keys.locator('.annotation-marker').first().isHidden()).toBe(true);
    await keys.keyboard.press('Space');
    await expect.poll(() => keys.locator('.annotation-marker').first().isVisible()).toBe(true);

    await tabTo(keys, 'annotation-marker');
    await keys.keyboard.press('Enter');
    const card = keys.locator('.annotation-card.pinned');
    await card.waitFor();
    await expect.poll(() => card.textContent()).toContain('Flag with a script link');
    await keys.keyboard.press('Escape');
    await card.waitFor({ state: 'detached' });
    expect((await focused(keys)).what).toBe('annotation-marker');

    await keys.keyboard.press('Shift+Tab');
    await keys.keyboard.press('Shift+Tab');
    expect((await focused(keys)).what).toBe('apl');
    await keys.keyboard.press('Control+A');
    await keys.keyboard.type("['web'] | where status >= 500 | summarize count() by bin_auto(_time)");
    await keys.keyboard.press('Control+Enter');
    const errors = webEvents.filter((event) => (event as { status?: number }).status === 500).length;
    await expect.poll(async () => ((await chartData(keys)).series[0] ?? []).reduce((sum: number, value) => sum + (value ?? 0), 0)).toBe(errors);
  });
});
