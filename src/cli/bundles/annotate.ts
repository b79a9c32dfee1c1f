/**
 * The entry of `timemark annotate`'s one-file bundle, build/cli/annotate/index.cjs, which bin/timemark.js
 * loads with require (see src/cli/tools/build-bundles.mjs). Same signature as main.ts's main.
 */
import * as command from '../commands/annotate.js';
import { bundledMain } from '../run-command.js';

export { processIo } from '../io.js';

export const main = bundledMain('annotate', command);
