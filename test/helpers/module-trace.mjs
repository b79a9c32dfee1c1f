// Loaded with `node --import`: records the URL of every module the process loads into the file
// named by TIMEMARK_MODULE_TRACE, one per line, so that a test can see what a command loaded.
// ES modules as the loader hooks see them; CommonJS ones (bin/timemark.js, version.cjs, the
// command bundles) from require's cache when the process exits, since require passes no hook.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.TIMEMARK_MODULE_TRACE;
register(new URL('./module-trace-hooks.mjs', import.meta.url), { data: { file } });
if (file) {
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => appendFileSync(file, Object.keys(cache).map((path) => `${pathToFileURL(path).href}\n`).join('')));
}
