import { runPost } from './run.js';

// The post step never fails the job, not even when the toolkit itself breaks.
runPost().catch((error: unknown) => {
  console.log(`::warning::Timemark's post step failed: ${String(error)}`);
});
