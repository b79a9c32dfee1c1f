#!/usr/bin/env node
'use strict';
// CommonJS on purpose (bin/package.json): `timemark --version` is answered without starting the
// ES module loader, and so are the commands run most often from shells and CI steps (annotate,
// ingest, query), each of which is one CommonJS file made by src/cli/tools/build-bundles.mjs.
// Every other command line loads the built CLI, whose commands each load only their own modules.
// "npm run build" makes all of them ("npm ci" runs it through "prepare").

/** Keep in step with BUNDLED_COMMANDS in src/cli/tools/build-bundles.mjs. */
const BUNDLES = {
  annotate: () => require('../build/cli/annotate/index.cjs'),
  ingest: () => require('../build/cli/ingest/index.cjs'),
  query: () => require('../build/cli/query/index.cjs'),
};

const args = process.argv.slice(2);
const version = args.length === 1 ? require('../build/src/cli/version.cjs') : undefined;
if (version?.VERSION_WORDS.includes(args[0])) {
  writeOut(`${version.packageVersion()}\n`);
} else if (args[0] !== undefined && Object.hasOwn(BUNDLES, args[0])) {
  const { main, processIo } = BUNDLES[args[0]]();
  main(args, processIo()).then((code) => {
    process.exitCode = code;
  });
} else {
  Promise.all([import('../build/src/cli/main.js'), import('../build/src/cli/io.js')]).then(async ([{ main }, { processIo }]) => {
    process.exitCode = await main(args, processIo());
  });
}

/**
 * Writes to standard output without creating process.stdout, whose stream classes are most of
 * what `timemark --version` would load; process.stdout writes whatever the file descriptor did
 * not take at once (a full pipe, a closed one), as it would have written all of it.
 */
function writeOut(text) {
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    written = require('node:fs').writeSync(1, bytes);
  } catch {
    written = 0;
  }
  if (written < bytes.length) process.stdout.write(bytes.subarray(written));
}
