import { defineConfig } from 'vitest/config';

export default defineConfig({
  // src/cli/version.cts is CommonJS TypeScript (bin/timemark.js answers --version with it before
  // any ES module loads); Vite transforms only .ts/.mts by default.
  oxc: { include: /\.(m?ts|cts|[jt]sx)$/ },
  test: {
    include: ['test/**/*.test.ts'],
    // PostgreSQL, Chromium and the register of child processes, prepared once (or one message saying what is missing).
    globalSetup: ['test/setup/global.ts'],
    setupFiles: ['test/setup/kill-children.ts', 'test/setup/fast-check.ts'],
    // The summary ends with the tests that did not run, and why (under CI, any such test fails the run).
    reporters: ['default', './test/setup/not-run-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: several suites start servers and child processes, so keep the pool small.
    maxWorkers: 2,
  },
});
