import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { REPO_ROOT } from '../../helpers/child-process.js';
export const ARTIFACTS = join(REPO_ROOT, 'test-artifacts');

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** One headless Chromium (the one the global setup found) with a fresh profile; a test file starts one and reuses its pages. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'timemark-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: inject('chromiumPath'),
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    viewport: { width: 1280, height: 800 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Collects what a page does wrong: script errors, CSP violations and failed requests, and every
 * URL it requests, so that tests can check that the token never appears in one.
 */
export function watchPage(page: Page): { problems: string[]; requestedUrls: string[] } {
  const problems: string[] = [];
  const requestedUrls: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('request', (request) => requestedUrls.push(request.url()));
  return { problems, requestedUrls };
}

export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, name);
  await page.screenshot({ path, fullPage: true });
  return path;
}
