import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../../src/common/errors.js';
import { decodeBody, type DecodedBody } from '../../../src/engine/ingest/decode.js';
import { INGEST_LIMITS, type IngestLimits } from '../../../src/engine/ingest/limits.js';
import { ingestSource, restageBody } from '../../../src/engine/ingest/restage.js';
import { parseIngestOptions, withMapFields, type IngestRequestParts } from '../../../src/engine/ingest/options.js';

const dir = mkdtempSync(join(tmpdir(), 'timemark-decode-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = (name: string): Buffer => readFileSync(new URL(`../../fixtures/ingest/${name}`, import.meta.url));
const NOW = Date.parse('2024-06-01T00:00:00Z');
let fileNumber = 0;

/** Through the JavaScript decoder, whose staged layout events() reads (raw-ndjson.test.ts compares the raw path with it). */
function decode(body: Buffer | string, parts: IngestRequestParts, limits: IngestLimits = INGEST_LIMITS): DecodedBody {
  return decodeBody(Buffer.from(body), parseIngestOptions(parts), { file: join(dir, `${fileNumber++}.ndjson`), nowMs: NOW, limits, raw: false });
}

/** The staged events with field names instead of part keys, and `_time` in ns. */
function events(decoded: DecodedBody): Record<string, unknown>[] {
  const fieldOf = new Map(decoded.batch.parts.map((part) => [part.key, part.field]));
  const text = readFileSync(decoded.batch.file, 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const staged = JSON.parse(line) as Record<string, unknown>;
      const event: Record<string, unknown> = { _time: BigInt(staged.t as number) * 1_000_000n + BigInt(staged.n as number) };
      for (const [key, value] of Object.entries(staged)) if (fieldOf.has(key)) event[fieldOf.get(key) as string] = value;
      return event;
    });
}

const ndjson = { contentType: 'application/x-ndjson' };

describe('decoding ingest bodies', () => {
  it('reads NDJSON: a malformed line fails that event only, blank lines are skipped', () => {
    const decoded = decode(fixture('events.ndjson'), ndjson);
    expect(decoded.batch.count).toBe(4);
    expect(decoded.failures.map((failure) => failure.error)).toEqual([
      expect.stringMatching(/^Line 4 is not valid JSON \(.*\)\. Expected one JSON object per line\.$/),
      expect.stringMatching(/^Line 6: Field "_time" has the value "yesterday", which is not a time/),
    ]);
    expect(decoded.processedBytes).toBe(fixture('events.ndjson').length);
    const [first, second, third, fourth] = events(decoded);
    expect(first).toEqual({ _time: 1705327200123456789n, service: 'api', status: 200, duration_ms: 12.5, 'geo.city': 'Berlin', 'geo.country': 'Germany', tags: '["canary"]' });
    expect(second?._time).toBe(1705327201000000000n);
    expect(third).toMatchObject({ _time: 1705327202000000000n, status: '500', 'user.id': 42, 'user.roles': '["admin","dev"]' });
    // Reserved names are kept as _user_<name>; _time defaults to the ingest time.
    expect(fourth).toEqual({ _time: BigInt(NOW) * 1_000_000n, service: 'worker', _user__sysTime: 'spoofed', _user__rowId: 7, Status: 'shadow' });
  });

  it('reports storage and types per part, one part per storage of a field', () => {
    const decoded = decode('{"v":1}\n{"v":"x"}\n{"v":[1]}\n{"v":{"deep":true}}\n', ndjson);
    expect(decoded.batch.parts.map(({ field, storage, types }) => [field, storage, types])).toEqual([
      ['v', 'integer', ['integer']],
      ['v', 'string', ['string']],
      ['v', 'json', ['array']],
      ['v.deep', 'boolean', ['boolean']],
    ]);
  });

  it('reads a JSON array, failing elements that are not objects, and a single object', () => {
    const decoded = decode(fixture('events.json'), { contentType: 'application/json' });
    expect(decoded.batch.count).toBe(3);
    expect(decoded.failures.map((failure) => failure.error)).toEqual(['Event 3 is the string "not an object". Expected a JSON object with the event\'s fields.']);
    expect(events(decoded).map((event) => event._time)).toEqual([1705327200000000000n, 1705327201000000000n, 1705327202000000000n]);
    expect(events(decoded)[2]).toMatchObject({ 'latency.p50': 1.5, 'latency.p99': 20 });
    expect(decode('{"a":1}', { contentType: 'application/json; charset=utf-8' }).batch.count).toBe(1);
    expect(decode('  ', { contentType: 'application/json' }).batch.count).toBe(0);
  });

  it('refuses a JSON body that does not parse, saying what was expected', () => {
    expect(() => decode('[{"a":1},', { contentType: 'application/json' })).toThrow(InputError);
    expect(() => decode('[{"a":1},', { contentType: 'application/json' })).toThrow(/not valid JSON .*Expected an array of event objects/);
    expect(() => decode('42', { contentType: 'application/json' })).toThrow(/The request body is 42\. Expected an array of event objects/);
  });

  it('reads CSV with a header row: typed cells, quotes, and rows of the wrong width failing alone', () => {
    const decoded = decode(fixture('events.csv'), { contentType: 'text/csv', timestampField: 'time' });
    expect(decoded.failures.map((failure) => failure.error)).toEqual([
      'Row 4 has 3 values. Expected 6, one for each field of the header (time,service,status,duration_ms,ok,note).',
    ]);
    expect(events(decoded)).toEqual([
      { _time: 1705327200000000000n, service: 'api', status: 200, duration_ms: 12.5, ok: true, note: 'quoted, with a comma' },
      { _time: 1705327201000000000n, service: 'web', status: 404, duration_ms: 3, ok: false },
      { _time: 1705327203000000000n, service: 'api', status: '00123', duration_ms: -1000, ok: 'TRUE', note: 'a "quoted" word' },
    ]);
  });

  it('reads CSV with field names from X-Axiom-CSV-Fields, an empty header meaning the header row, and another delimiter', () => {
    expect(events(decode(fixture('events-no-header.csv'), { contentType: 'text/csv', csvFields: 'service,status' })).map(({ _time, ...rest }) => rest)).toEqual([
      { service: 'api', status: 200 },
      { service: 'web', status: 404 },
    ]);
    expect(decode(fixture('events-semicolon.csv'), { contentType: 'text/csv', csvFields: '', csvDelimiter: ';' }).batch.count).toBe(2);
  });

  it('refuses CSV without a header and CSV that does not parse', () => {
    expect(() => decode('', { contentType: 'text/csv' })).toThrow(/no header row\. Expected a first row of field names, or the field names in the X-Axiom-CSV-Fields header/);
    expect(() => decode('a,b\n"unclosed,2\n', { contentType: 'text/csv' })).toThrow(/The CSV body cannot be read/);
  });

  it('decompresses gzip and zstd, and treats an empty Content-Encoding as none', () => {
    const plain = decode(fixture('events.ndjson'), ndjson);
    for (const [body, encoding] of [
      [fixture('events.ndjson.gz'), 'gzip'],
      [fixture('events.ndjson.zst'), 'zstd'],
      [fixture('events.ndjson'), ''],
    ] as const) {
      const decoded = decode(body, { ...ndjson, contentEncoding: encoding });
      expect(events(decoded)).toEqual(events(plain));
      expect(decoded.processedBytes).toBe(plain.processedBytes);
    }
  });

  it('sizes gzip output by the trailer only as a hint: several members, and a trailer that lies', () => {
    const plain = decode(fixture('events.ndjson'), ndjson);
    const text = fixture('events.ndjson');
    const cut = text.indexOf('\n', text.length >> 1) + 1;
    // The trailer of a body of two members states the size of the last one only.
    const twoMembers = Buffer.concat([gzipSync(text.subarray(0, cut)), gzipSync(text.subarray(cut))]);
    expect(events(decode(twoMembers, { ...ndjson, contentEncoding: 'gzip' }))).toEqual(events(plain));
    // A stated size other than the data's fails zlib's own length check, small or huge.
    for (const stated of [1, 0xffffffff]) {
      const lying = Buffer.from(gzipSync(text));
      lying.writeUInt32LE(stated, lying.length - 4);
      expect(() => decode(lying, { ...ndjson, contentEncoding: 'gzip' })).toThrow(/not valid gzip data/);
    }
  });

  it('stops a decompression bomb at the body limit with a 413, and refuses undecodable data with a 400', () => {
    expect(() => decode(fixture('bomb.gz'), { ...ndjson, contentEncoding: 'gzip' })).toThrow(PayloadTooLargeError);
    expect(() => decode(fixture('bomb.zst'), { ...ndjson, contentEncoding: 'zstd' })).toThrow(/larger than the limit of 64 MiB/);
    expect(() => decode('not gzip', { ...ndjson, contentEncoding: 'gzip' })).toThrow(/not valid gzip data/);
    expect(() => decode(gzipSync('{"a":1}\n').subarray(0, 12), { ...ndjson, contentEncoding: 'gzip' })).toThrow(InputError);
    expect(() => decode(fixture('events.ndjson.zst').subarray(0, 20), { ...ndjson, contentEncoding: 'zstd' })).toThrow(/not valid zstd data/);
  });

  it('refuses more events than the per-request limit with a 413 naming the limit', () => {
    const limits = { ...INGEST_LIMITS, maxEventsPerRequest: 3 };
    expect(decode('{}\n{}\n{}\n', ndjson, limits).batch.count).toBe(3);
    expect(() => decode('{}\n{}\n{}\n{}\n', ndjson, limits)).toThrow(/more than 3 events\. Expected at most 3 events per request/);
    expect(() => decode('[{},{},{},{}]', { contentType: 'application/json' }, limits)).toThrow(PayloadTooLargeError);
  });

  it('refuses unknown content types, encodings and charsets with a 415, and bad options with a 400', () => {
    expect(() => decode('{}', { contentType: 'application/x-www-form-urlencoded' })).toThrow(UnsupportedMediaTypeError);
    expect(() => decode('{}', { contentType: undefined })).toThrow(/Expected application\/json \(an array of events\), application\/x-ndjson/);
    expect(() => decode('{}', { ...ndjson, contentEncoding: 'br' })).toThrow(/Unsupported Content-Encoding "br"\. Expected gzip, zstd/);
    expect(() => decode('{}', { contentType: 'application/json; charset=latin1' })).toThrow(UnsupportedMediaTypeError);
    expect(() => decode('{}', { ...ndjson, labels: '[1]' })).toThrow(/X-Axiom-Event-Labels is "\[1\]"\. Expected a JSON object/);
    expect(() => decode('{}', { ...ndjson, labels: '{' })).toThrow(/not valid JSON/);
    expect(() => decode('a\n', { contentType: 'text/csv', csvDelimiter: '::' })).toThrow(/Invalid csv-delimiter "::"/);
  });

  it('adds labels to every event, over the event\'s own fields', () => {
    const decoded = decode('{"env":"dev","a":1}\n{"b":2}\n', { ...ndjson, labels: '{"env":"prod","team":{"name":"core"}}' });
    expect(events(decoded).map(({ _time, ...rest }) => rest)).toEqual([
      { env: 'prod', a: 1, 'team.name': 'core' },
      { b: 2, env: 'prod', 'team.name': 'core' },
    ]);
  });

  it('takes the time from timestamp-field in timestamp-format, keeping an event\'s own _time as _user__time', () => {
    const decoded = decode(fixture('nginx.ndjson'), { ...ndjson, timestampField: 'ts', timestampFormat: '02/Jan/2006:15:04:05 -0700' });
    expect(events(decoded).map((event) => event._time)).toEqual([1705323600000000000n, 1705323601250000000n, 1705327202000000000n]);
    expect(events(decoded)[0]).not.toHaveProperty('ts');
    const own = decode('{"at":"2024-01-15T14:00:00Z","_time":"kept"}\n', { ...ndjson, timestampField: 'at' });
    expect(events(own)[0]).toEqual({ _time: 1705327200000000000n, _user__time: 'kept' });
    const nested = decode('{"meta":{"ts":1705327200}}\n', { ...ndjson, timestampField: 'meta.ts' });
    expect(events(nested)[0]).toEqual({ _time: 1705327200000000000n });
  });

  it('keeps the last value of a name that a dotted key and a nested object both spell', () => {
    expect(events(decode('{"a.b":1,"a":{"b":"two"}}\n', ndjson))[0]).toEqual({ _time: BigInt(NOW) * 1_000_000n, 'a.b': 'two' });
  });

  it('keeps strings exactly: quotes, backslashes, control characters, line separators and emoji', () => {
    const tricky = ['say "hi"', 'C:\\path\\file', 'tab\tnew\nline', 'nul\u0000byte', 'bell\u0007', 'sep\u2028arator', 'emoji 😀 ok', ''];
    const [event] = events(decode(`${JSON.stringify(Object.fromEntries(tricky.map((value, i) => [`s${i}`, value])))}\n`, ndjson));
    expect(tricky.map((_, i) => event?.[`s${i}`])).toEqual(tricky);
  });

  it('reads invalid UTF-8 and lone surrogates as replacement characters', () => {
    const body = Buffer.concat([Buffer.from('{"s":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b","t":"\\ud800x","\\udc00k":1}\n')]);
    const [event] = events(decode(body, ndjson));
    expect(event).toMatchObject({ s: 'a\ufffd\ufffdb', t: '\ufffdx', '\ufffdk': 1 });
  });

  it('keeps objects nested past the depth limit whole, as JSON', () => {
    let deep: unknown = { leaf: 1 };
    for (let i = 0; i < 40; i++) deep = { n: deep };
    const [event] = events(decode(`${JSON.stringify({ deep })}\n`, ndjson));
    const [name, value] = Object.entries(event ?? {}).find(([key]) => key.startsWith('deep')) ?? [];
    expect(name?.split('.')).toHaveLength(33);
    expect(JSON.parse(value as string)).toEqual({ n: { n: { n: { n: { n: { n: { n: { n: { leaf: 1 } } } } } } } } });
  });

  it('fails events that would bring a request past its distinct fields limit, keeping the others', () => {
    const limits = { ...INGEST_LIMITS, maxFieldsPerRequest: 3 };
    const decoded = decode('{"a":1,"b":2}\n{"c":3,"d":4}\n{"a":5}\n{"e":7}\n', ndjson, limits);
    expect(decoded.batch.count).toBe(2);
    expect(decoded.failures.map((failure) => failure.error)).toEqual([
      'Line 2: The request already has 3 distinct fields, so the event\'s new field "d" cannot be added. Expected at most 3 distinct fields per request.',
      'Line 4: The request already has 3 distinct fields, so the event\'s new field "e" cannot be added. Expected at most 3 distinct fields per request.',
    ]);
    expect(decoded.batch.parts.map((part) => part.field)).toEqual(['a', 'b']);
  });

  it('fails an event whose field name is too long, and nothing of it is staged', () => {
    const decoded = decode(`{"ok":1}\n{"${'x'.repeat(2000)}":1,"alsoNew":2}\n`, ndjson);
    expect(decoded.failures[0]?.error).toMatch(/^Line 2: The field name "x{64}…" has 2000 characters\. Expected at most 1024\.$/);
    expect(decoded.batch.parts.map((part) => part.field)).toEqual(['ok']);
  });

  it('keeps the object of a map field whole, nested or under its dotted name, and everything else as usual', () => {
    const body = [
      '{"geo":{"city":"Paris","country":"France"},"attributes":{"custom":{"http.protocol":"HTTP/1.1"},"http":{"method":"GET"}}}',
      '{"attributes.custom":{"n":1},"geo":"unknown"}',
      '',
    ].join('\n');
    const options = withMapFields(parseIngestOptions(ndjson), ['geo', 'attributes.custom']);
    // Without the raw path's opt-out: a body it would take goes to the decoder, which knows map fields.
    const decoded = decodeBody(Buffer.from(body), options, { file: join(dir, `${fileNumber++}.ndjson`), nowMs: NOW });
    expect(decoded.path).toBe('decoder');
    expect(decoded.batch.parts.map(({ field, storage, types }) => [field, storage, types])).toEqual([
      ['geo', 'json', ['object']],
      ['attributes.custom', 'json', ['object']],
      ['attributes.http.method', 'string', ['string']],
      ['geo', 'string', ['string']],
    ]);
    expect(events(decoded).map(({ _time, ...fields }) => fields)).toEqual([
      { geo: '{"city":"Paris","country":"France"}', 'attributes.custom': '{"http.protocol":"HTTP/1.1"}', 'attributes.http.method': 'GET' },
      { 'attributes.custom': '{"n":1}', geo: 'unknown' },
    ]);
  });

  it('decodes a kept body again with the map fields it was accepted with, from the ingest log\'s JSON line', () => {
    const body = Buffer.from('{"geo":{"city":"Paris"}}\n');
    const source = ingestSource(body, withMapFields(parseIngestOptions(ndjson), ['geo']), NOW, INGEST_LIMITS);
    // The ingest log writes the recipe as JSON; a replay reads it back.
    const recipe = JSON.parse(JSON.stringify(source.recipe)) as unknown;
    const batch = restageBody(body, recipe, join(dir, `${fileNumber++}.ndjson`));
    expect(batch.parts.map(({ field, storage }) => [field, storage])).toEqual([['geo', 'json']]);
  });
});
