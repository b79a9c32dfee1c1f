// Loaded with `node --import`: records the URL of every module the process loads into the file
// named by TIMEMARK_MODULE_TRACE, one per line, so that a test can see what a command loaded.
import { register } from 'node:module';

register(new URL('./module-trace-hooks.mjs', import.meta.url), { data: { file: process.env.TIMEMARK_MODULE_TRACE } });
