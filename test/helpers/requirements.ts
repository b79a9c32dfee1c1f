import type { TestContext } from 'vitest';
import { isCI } from '../setup/ci.js';

/**
 * For a test that can only run on some machines (as root, say). Where it cannot, outside CI it is
 * skipped with `reason`, which the run's summary lists (test/setup/not-run-reporter.ts); under
 * CI, where every test must run, it fails with `reason`.
 */
export function runOnlyIf(context: TestContext, condition: boolean, reason: string): void {
  if (condition) return;
  if (isCI()) throw new Error(`This test cannot run on this machine: ${reason}. Under CI every test runs, so that is a failure.`);
  context.skip(reason);
}
