/**
 * The Chromium the browser tests drive (through playwright-core): CHROMIUM_PATH when set,
 * else the first of the usual install paths that runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's package (which .ci/run installs), Ubuntu's, the snap, and the macOS app. */
export const USUAL_CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium', '/Applications/Chromium.app/Contents/MacOS/Chromium'];

export type ChromiumLookup = { path: string } | { problem: string };

/** Whether the program answers `--version`: Ubuntu's chromium-browser can be a stub that only says to install the snap. */
function runs(path: string): boolean {
  return existsSync(path) && spawnSync(path, ['--version'], { stdio: 'ignore', timeout: 30_000 }).status === 0;
}

export function findChromium(env: NodeJS.ProcessEnv): ChromiumLookup {
  const configured = env.CHROMIUM_PATH;
  if (configured) return runs(configured) ? { path: configured } : { problem: `Chromium: CHROMIUM_PATH is ${configured}, which does not run ("${configured} --version" failed).` };
  const found = USUAL_CHROMIUM_PATHS.find(runs);
  return found ? { path: found } : { problem: `Chromium, for the dashboard's browser tests, is not installed: none of ${USUAL_CHROMIUM_PATHS.join(', ')} runs, and CHROMIUM_PATH is not set.` };
}
