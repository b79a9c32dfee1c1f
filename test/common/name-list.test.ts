import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { parseNameList } from '../../src/common/name-list.js';

describe('parseNameList', () => {
  it('splits on commas and newlines, trims and de-duplicates in first-seen order', () => {
    expect(parseNameList('datasets', [' prod , staging\nprod\n'])).toEqual(['prod', 'staging']);
    expect(parseNameList('datasets', ['a', 'b,a'])).toEqual(['a', 'b']);
    expect(parseNameList('datasets', ['prod,\n  staging,\r\n  dev,\n'])).toEqual(['prod', 'staging', 'dev']);
  });

  it.each([' a,,b', ',', '', 'a\n\nb', 'a,\n,b', 'a,b,'])('rejects %j, naming the input and quoting the value', (value) => {
    expect(() => parseNameList('datasets', [value])).toThrow(InputError);
    expect(() => parseNameList('datasets', [value])).toThrow(`Invalid datasets ${JSON.stringify(value)}. Expected a comma- or newline-separated list`);
  });
});
