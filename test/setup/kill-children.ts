/**
 * Each test file ends by killing the children it left running (a test that failed before its
 * `finally`, a `beforeAll` that threw after a spawn): they would otherwise live on in the worker,
 * which runs other files, until the run ends. Registered first, so it runs after the file's own
 * `afterAll` hooks (vitest runs them in reverse order).
 */
import { afterAll } from 'vitest';
import { killLeftoverChildren } from '../helpers/child-process.js';

afterAll(killLeftoverChildren);
