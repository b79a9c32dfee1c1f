// Loaded with --import into each measured process: prints its peak resident set size on exit,
// so the bundle and the baselines are measured the same way, from inside, without a profiler.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  writeSync(2, `\nTIMEMARK_BENCH_MAX_RSS_KB=${process.resourceUsage().maxRSS}\n`);
});
