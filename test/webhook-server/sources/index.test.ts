import { describe, expect, it } from 'vitest';
import { SOURCES } from '../../../webhook-server/src/sources/index.js';
import { SOURCE_NAMES } from '../../../webhook-server/src/sources/types.js';

describe('SOURCES', () => {
  it('has a source for every name, registered under its own name', () => {
    expect(Object.keys(SOURCES).sort()).toEqual([...SOURCE_NAMES].sort());
    for (const name of SOURCE_NAMES) expect(SOURCES[name].name).toBe(name);
  });
});
