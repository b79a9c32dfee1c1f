import { StructuredQueryError } from '../../../src/engine/structured/errors.js';

/** The StructuredQueryError `run` throws; anything else it throws, or nothing, fails the test. */
export function structuredErrorOf(run: () => unknown, what: unknown): StructuredQueryError {
  try {
    run();
  } catch (error) {
    if (error instanceof StructuredQueryError) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(what)} was accepted.`);
}
