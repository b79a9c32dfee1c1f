import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { docBlocks, maskVariable, shapeDifferences } from './doc-blocks.js';

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/docs/${name}`, import.meta.url), 'utf8');

describe('the marked blocks of a document', () => {
  it('finds runnable blocks with their output, requests and responses, in lists too, and leaves unmarked blocks alone', () => {
    expect(docBlocks('page.md', fixture('marked-blocks.md'))).toEqual([
      { kind: 'runnable', line: 7, text: 'echo hello', output: 'hello' },
      { kind: 'runnable', line: 17, text: 'curl -sS http://127.0.0.1:8080/readyz' },
      { kind: 'response', line: 21, text: '{"status": "ready", "checks": {"store": "ok", "events": "ok"}}' },
      { kind: 'request', line: 25, text: '{"datasets": ["d"], "type": "deploy"}', method: 'POST', path: '/v2/annotations', expectsReply: true },
      { kind: 'response', line: 29, text: '{"id": "ann_x", "datasets": ["d"], "type": "deploy", "time": "2024-01-01T00:00:00.000Z"}', status: 201 },
      // A response that names its own route leaves the request before it to be checked on its own.
      { kind: 'request', line: 33, text: '{"datasets": ["d"], "type": "deploy"}', method: 'POST', path: '/v2/annotations', expectsReply: false },
      { kind: 'response', line: 37, text: '{"status": "ready", "checks": {"store": "ok", "events": "ok"}}', method: 'GET', path: '/readyz' },
    ]);
  });

  it('refuses an output block that follows no runnable block, naming the document and line', () => {
    expect(() => docBlocks('page.md', fixture('output-without-runnable.md'))).toThrow('page.md:5: an output block must follow a runnable sh block.');
  });
});

describe('the shape of a documented reply against a real one', () => {
  it('accepts the same members with values of the same kinds, whatever the values', () => {
    expect(shapeDifferences({ id: 'ann_1', n: 1, tags: ['a'], nested: { ok: true } }, { id: 'ann_2', n: 2.5, tags: ['b', 'c'], nested: { ok: false } })).toEqual([]);
  });

  it('names a member shown but absent, one left out, and a kind that differs, by its path', () => {
    expect(shapeDifferences({ a: 1, gone: 1, list: [{ x: 's' }] }, { a: 'one', extra: 1, list: [{ x: 2 }] })).toEqual([
      '$.gone: shown in the documentation, absent from the reply',
      '$.extra: in the reply, left out of the documentation',
      '$.a: the documentation shows number, the reply has string',
      '$.list[0].x: the documentation shows string, the reply has number',
    ]);
  });

  it('takes a documented null for any value, and an empty real array for any elements', () => {
    expect(shapeDifferences({ avg: null, matches: [{ _rowId: '1-1' }] }, { avg: 3.5, matches: [] })).toEqual([]);
  });
});

describe('masking what changes from run to run', () => {
  it('masks times, generated ids, durations and rates, and reads CRLF as LF', () => {
    expect(maskVariable('{"id":"ann_5lvnfl5r73r6bhdw3d6n","time":"2024-05-01T12:00:00.000Z"}\r\nIngested 2 events into "web" in 0.6 s (4 events/s); 0 failed.\r\n')).toBe(
      '{"id":"ann_<id>","time":"<time>"}\nIngested 2 events into "web" in <n> s (<n> events/s); 0 failed.',
    );
  });
});
