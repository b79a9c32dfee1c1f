/**
 * What the global setup (test/setup/global.ts) hands every test file through vitest's
 * `provide`/`inject`: the one place these names and their types are written.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL the tests use: the one at TIMEMARK_TEST_DATABASE_URL or 127.0.0.1:5432, or the run's own. */
    databaseUrl: string;
    /** The Chromium the browser tests drive. */
    chromiumPath: string;
    /** The folder where every child process a test spawns is registered (test/setup/child-registry.ts). */
    childRegistry: string;
  }
}

export {};
