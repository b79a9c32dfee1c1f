import { defineConfig } from 'vitest/config';

export default defineConfig({
  // src/cli/version.cts is CommonJS TypeScript (bin/timemark.js answers --version with it before
  // any ES module loads); Vite transforms only .ts/.mts by default.
  oxc: { include: /\.(m?ts|cts|[jt]sx)$/ },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/fast-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: several suites start servers and child processes, so keep the pool small.
    maxWorkers: 2,
  },
});
