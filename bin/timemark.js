#!/usr/bin/env node
'use strict';
// CommonJS on purpose (bin/package.json): `timemark --version` is answered without starting the
// ES module loader; every other command line loads the built CLI, which "npm run build" makes
// ("npm ci" runs it through "prepare"). Each command then loads only its own modules.
const { packageVersion, VERSION_WORDS } = require('../build/src/cli/version.cjs');

const args = process.argv.slice(2);
if (args.length === 1 && VERSION_WORDS.includes(args[0])) {
  process.stdout.write(`${packageVersion()}\n`);
} else {
  Promise.all([import('../build/src/cli/main.js'), import('../build/src/cli/io.js')]).then(async ([{ main }, { processIo }]) => {
    process.exitCode = await main(args, processIo());
  });
}
