import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: several suites start servers and child processes, so keep the pool small.
    maxWorkers: 2,
  },
});
