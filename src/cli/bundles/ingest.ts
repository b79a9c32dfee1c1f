/**
 * The entry of `timemark ingest`'s one-file bundle, build/cli/ingest/index.cjs, which bin/timemark.js
 * loads with require (see src/cli/tools/build-bundles.mjs). Same signature as main.ts's main.
 */
import * as command from '../commands/ingest.js';
import { bundledMain } from '../run-command.js';

export { processIo } from '../io.js';

export const main = bundledMain('ingest', command);
