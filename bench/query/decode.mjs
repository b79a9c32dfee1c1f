#!/usr/bin/env node
// The decode step of ingest in one process, per event: what a decode worker does with one
// gzip'd NDJSON body before DuckDB sees it, next to JSON.parse of the same lines in the same run.
// Usage: npm run build && node bench/query/decode.mjs [--events 200000] [--batch 10000] [--passes 5]
// Each step runs --passes times over all bodies (after one warm-up pass); the best pass counts,
// since a shared machine only ever makes a pass slower. Writes staged files to a temporary dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { decodeBody } from '../../build/src/engine/ingest/decode.js';
import { decompressBody } from '../../build/src/engine/ingest/decompress.js';
import { INGEST_LIMITS } from '../../build/src/engine/ingest/limits.js';
import { parseIngestOptions } from '../../build/src/engine/ingest/options.js';
import { stageRawNdjson } from '../../build/src/engine/ingest/raw-ndjson.js';
import { httpLogsNdjsonBatches } from '../lib/http-logs.mjs';
import { fixed, flags } from '../lib/stats.mjs';

const options = flags({ events: 200_000, batch: 10_000, passes: 5 });
const workDir = mkdtempSync(join(tmpdir(), 'timemark-bench-decode-'));
const file = join(workDir, 'staged.ndjson');

/** Best time of --passes passes of `step` over every body, in µs per event. */
function best(bodies, step) {
  for (const body of bodies) step(body);
  let fastest = Infinity;
  for (let pass = 0; pass < options.passes; pass++) {
    const started = performance.now();
    for (const body of bodies) step(body);
    fastest = Math.min(fastest, performance.now() - started);
  }
  return (fastest * 1000) / options.events;
}

try {
  const texts = [...httpLogsNdjsonBatches({ count: options.events }, options.batch)];
  const plain = texts.map((text) => Buffer.from(text));
  const gzipped = plain.map((body) => gzipSync(body));
  const ndjson = parseIngestOptions({ contentType: 'application/x-ndjson', contentEncoding: 'gzip' });
  const context = { file, nowMs: Date.now(), limits: INGEST_LIMITS };

  const baseline = best(texts, (text) => {
    for (const line of text.split('\n')) if (line !== '') JSON.parse(line);
  });
  const steps = [
    ['gunzip, zlib defaults (16 KiB chunks)', best(gzipped, (body) => gunzipSync(body))],
    ['gunzip as ingest does (decompressBody)', best(gzipped, (body) => decompressBody(body, 'gzip', INGEST_LIMITS.maxBodyBytes))],
    ['raw path: structural pass + staged file', best(plain, (body) => stageRawNdjson(body, context))],
    ['raw path, whole body (gzip in, staged file out)', best(gzipped, (body) => decodeBody(body, ndjson, context))],
    ['JavaScript decoder, whole body', best(gzipped, (body) => decodeBody(body, ndjson, { ...context, raw: false }))],
  ];
  console.log(`${options.events} events in bodies of ${options.batch}, best of ${options.passes} passes; baseline JSON.parse of each line: ${fixed(baseline)} µs/event\n`);
  console.log('| step | µs per event | ratio to JSON.parse |');
  console.log('|---|---|---|');
  for (const [name, micros] of steps) console.log(`| ${name} | ${fixed(micros)} | ${fixed(micros / baseline)} |`);
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
