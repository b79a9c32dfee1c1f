import { describe, expect, it } from 'vitest';
import { decodeUtf8, JsonReader, parseJsonObject } from '../../../webhook-server/src/sources/json.js';
import { MalformedPayloadError } from '../../../webhook-server/src/sources/types.js';

const reader = (value: unknown) => JsonReader.parse(Buffer.from(JSON.stringify(value), 'utf8'));

describe('parseJsonObject', () => {
  it('parses a JSON object', () => {
    expect(parseJsonObject(Buffer.from('{"a":1}'))).toEqual({ a: 1 });
  });

  it.each([
    ['invalid JSON', '{"a":', /not valid JSON/],
    ['an empty body', '', /not valid JSON/],
    ['an array', '[1]', /is an array/],
    ['a string', '"deploy"', /is the string "deploy"/],
    ['null', 'null', /is null/],
  ])('rejects %s', (_, body, message) => {
    expect(() => parseJsonObject(Buffer.from(body))).toThrow(MalformedPayloadError);
    expect(() => parseJsonObject(Buffer.from(body))).toThrow(message);
  });

  it('rejects bytes that are not UTF-8', () => {
    expect(() => parseJsonObject(Buffer.from([0x7b, 0xc3, 0x28, 0x7d]))).toThrow(/UTF-8/);
  });
});

describe('decodeUtf8', () => {
  it('keeps a byte order mark so the decoded text re-encodes to the same bytes', () => {
    const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]);
    expect(Buffer.from(decodeUtf8(bytes)!, 'utf8').equals(bytes)).toBe(true);
  });
});

describe('JsonReader', () => {
  const body = reader({ deployment: { id: 42, sha: 'abc', creator: null, tags: ['a'], labels: { team: 'x', n: 1 } }, alerts: [{ a: 1 }, 2] });

  it('names the full path of a missing nested field', () => {
    expect(() => body.object('deployment').string('ref')).toThrow('Field "deployment.ref" is missing. Expected a non-empty string.');
  });

  it('quotes the value of a field of the wrong type', () => {
    expect(() => body.object('deployment').string('id')).toThrow('Field "deployment.id" is the number 42. Expected a non-empty string.');
  });

  it('reads identifiers written as numbers or strings', () => {
    expect(body.object('deployment').id('id')).toBe('42');
    expect(body.object('deployment').id('sha')).toBe('abc');
  });

  it('returns undefined for optional fields that are missing, null or empty', () => {
    const deployment = body.object('deployment');
    expect(deployment.optionalString('description')).toBeUndefined();
    expect(deployment.optionalObject('creator')).toBeUndefined();
    expect(reader({ a: '' }).optionalString('a')).toBeUndefined();
  });

  it('rejects an optional field present with the wrong type', () => {
    expect(() => body.object('deployment').optionalString('tags')).toThrow('"deployment.tags"');
  });

  it('names the index of an array element that is not an object', () => {
    expect(() => body.objects('alerts')).toThrow('Field "alerts[1]" is the number 2. Expected an object.');
  });

  it('reads a string map, writing non-string values as JSON', () => {
    expect(body.object('deployment').stringMap('labels')).toEqual({ team: 'x', n: '1' });
    expect(body.object('deployment').stringMap('missing')).toEqual({});
  });
});
