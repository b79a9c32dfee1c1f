/**
 * Ends the run's summary with the tests that did not run and why, so that nothing is skipped
 * silently; under CI, where every test must run, any such test fails the run.
 */
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { isCI } from './ci.js';

export default class NotRunReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    // With a name filter (-t), the tests it leaves out are skipped too: those are not worth naming.
    const filtered = this.vitest?.config.testNamePattern !== undefined;
    const notRun: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests('skipped')) {
        const result = test.result();
        const note = result.state === 'skipped' ? result.note : undefined;
        if (note === undefined && filtered) continue;
        notRun.push(`${module.relativeModuleId} > ${test.fullName}: ${note ?? `marked .${test.options.mode} in the code`}`);
      }
    }
    if (notRun.length === 0) return;
    const list = notRun.map((line) => `  - ${line}`).join('\n');
    if (isCI()) {
      console.error(`\nUnder CI every test must run, but ${notRun.length} did not:\n${list}\n`);
      process.exitCode = 1;
    } else {
      console.log(`\nDid not run (${notRun.length}):\n${list}\n`);
    }
  }
}
