import type uPlot from 'uplot';
import type { JSHandle, Page } from 'playwright-core';

/** Waits until every chart panel has finished its query and says what it shows. */
export async function waitForCharts(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const panels = [...document.querySelectorAll('.chart-panel')];
    return (
      panels.length > 0 &&
      panels.every((panel) => panel.querySelector('.plot')?.getAttribute('aria-busy') === null && (panel.querySelector('.plot-summary')?.textContent ?? '') !== '')
    );
  });
}

export interface Position {
  /** uPlot's valToPos in CSS pixels, relative to the plot area. */
  css: number;
  /** uPlot's valToPos in canvas pixels. */
  canvas: number;
  /** Left edge of the plot area in the viewport. */
  overLeft: number;
  overTop: number;
  overHeight: number;
  bbox: { left: number; top: number; width: number; height: number };
}

/** The uPlot instance of chart `index` (the page hangs it on its plot element). */
async function chartOf(page: Page, index: number): Promise<JSHandle<uPlot>> {
  return page.locator('.plot-area').nth(index).evaluateHandle((area) => {
    const chart = (area as HTMLElement & { uplot?: uPlot }).uplot;
    if (!chart) throw new Error('The chart has no uPlot instance.');
    return chart;
  });
}

/** Where uPlot itself puts a time (RFC 3339) on the x axis of chart `index`. */
export async function positionOf(page: Page, time: string, index = 0): Promise<Position> {
  const chart = await chartOf(page, index);
  return chart.evaluate((plot, timeText) => {
    const seconds = Date.parse(timeText) / 1000;
    const over = plot.over.getBoundingClientRect();
    const { left, top, width, height } = plot.bbox;
    return {
      css: plot.valToPos(seconds, 'x'),
      canvas: plot.valToPos(seconds, 'x', true),
      overLeft: over.left,
      overTop: over.top,
      overHeight: over.height,
      bbox: { left, top, width, height },
    };
  }, time);
}

export type Rgba = [number, number, number, number];

/**
 * The most common color of a one-pixel column of the plot area at canvas x: the background
 * there (a band, a line or nothing), whatever grid lines and series cross it.
 */
export async function columnColor(page: Page, canvasX: number, index = 0): Promise<Rgba> {
  const chart = await chartOf(page, index);
  return chart.evaluate((plot, x) => {
    const { top, height } = plot.bbox;
    const pixels = plot.ctx.getImageData(Math.round(x), Math.round(top), 1, Math.round(height)).data;
    const counts = new Map<string, number>();
    for (let offset = 0; offset < pixels.length; offset += 4) {
      const key = [pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3]].join(',');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const [mode] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? ['0,0,0,0'];
    return mode.split(',').map(Number) as [number, number, number, number];
  }, canvasX);
}

/** The data uPlot draws for chart `index`: x (seconds) and each series. */
export async function chartData(page: Page, index = 0): Promise<{ times: number[]; series: (number | null)[][]; labels: string[] }> {
  const chart = await chartOf(page, index);
  return chart.evaluate((plot) => ({
    times: [...plot.data[0]],
    series: plot.data.slice(1).map((values) => [...values].map((value) => value ?? null)),
    labels: plot.series.slice(1).map((series) => String(series.label ?? '')),
  }));
}

export function hex(color: string): [number, number, number] {
  const value = Number.parseInt(color.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/** True when `actual` is `color` (within rounding) at about `alpha` (0–1). */
export function isColor(actual: Rgba, color: string, alpha: number): boolean {
  const [r, g, b] = hex(color);
  const near = (x: number, y: number, tolerance: number): boolean => Math.abs(x - y) <= tolerance;
  return near(actual[0], r, 6) && near(actual[1], g, 6) && near(actual[2], b, 6) && near(actual[3], Math.round(alpha * 255), 4);
}

/** The canvas x of a line: the pixel column nearest it with the most of the line's color. */
export async function lineColumnColor(page: Page, canvasX: number, index = 0): Promise<Rgba[]> {
  return Promise.all([-1, 0, 1].map((delta) => columnColor(page, Math.round(canvasX) + delta, index)));
}
