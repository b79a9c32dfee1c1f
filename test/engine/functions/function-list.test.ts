import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { END, START, renderFunctionList, signatureOf } from '../../../src/engine/functions/function-list.js';
import { functionNamed } from '../../../src/engine/functions/index.js';

const DOC = readFileSync(new URL('../../../docs/apl.md', import.meta.url), 'utf8');

describe('the list of supported functions in docs/apl.md', () => {
  it('is the one the registries give (regenerate it with npm run docs:apl)', () => {
    expect(DOC.slice(DOC.indexOf(START) + START.length, DOC.indexOf(END)).trim()).toBe(renderFunctionList());
  });

  it('shows optional and repeated arguments', () => {
    expect(signatureOf(functionNamed('indexof')!)).toBe('indexof(source: string, lookup: string, [start_index: long], [length: long], [occurrence: long])');
    expect(signatureOf(functionNamed('strcat')!)).toBe('strcat(arg: any, …)');
    expect(signatureOf(functionNamed('ensure_field')!)).toBe('ensure_field(field_name: string, field_type: typeof(T))');
  });
});
