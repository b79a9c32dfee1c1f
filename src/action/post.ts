import { runPost } from './run.js';

// The post step never fails the job, not even when the toolkit itself breaks; the warning is
// written as a raw workflow command because the toolkit is what failed.
runPost().catch((error: unknown) => {
  const text = `Timemark's post step failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
  console.log(`::warning::${text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}`);
});
