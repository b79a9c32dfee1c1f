import { runMain } from './run.js';

// runMain reports its own failures through the runner; this catches only a broken runner.
runMain().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
