import { afterAll, beforeAll } from 'vitest';

/**
 * A resource for the tests of a file (or of the `describe` block it is called in): opened before
 * them, closed after them. The returned function reads it, inside tests and hooks only; read
 * earlier, it says so instead of handing out undefined.
 */
export function aroundTests<T>(what: string, open: () => Promise<T>, close: (resource: T) => Promise<void>, openTimeoutMs?: number): () => T {
  let resource: T | undefined;
  beforeAll(async () => {
    resource = await open();
  }, openTimeoutMs);
  afterAll(async () => {
    if (resource !== undefined) await close(resource);
  });
  return () => {
    if (resource === undefined) throw new Error(`${what} is read before beforeAll opened it: read it inside a test or a hook.`);
    return resource;
  };
}
