#!/usr/bin/env node
/**
 * How much of the APL reference runs on the local service: every query that the reference pages
 * link to the Playground ("Run in Playground"), sent as a user would paste it, against datasets
 * shaped like the Playground's (the field names and types the pages use).
 *
 *   node tools/apl-conformance/run.mjs --docs /path/to/axiomhq/docs [--json failures.json]
 *
 * `--docs` is a clone of github.com/axiomhq/docs (a work tree, or a bare repository read at HEAD).
 * The pages are read from there, never copied into this repository.
 *
 * A query "runs" when the service answers 200. That is not the same as answering right: the
 * engine's tests check answers (test/engine/); this measures coverage of the language as the
 * reference writes it, and lists what fails, grouped by the error's first words.
 *
 * Then the same for the pages' ```kusto code blocks that query one of these datasets but are no
 * Playground link's query (most are the "APL equivalent" of an SPL or SQL comparison): many
 * name placeholder fields (`field`, `x`) and cannot run as written, so they are reported apart.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { httpLogs } from '../../bench/lib/http-logs.mjs';
import { sampleDatasets } from './datasets.mjs';
import { kustoBlocks, queryApl, readPages, TOKEN, withLocalService } from './reference.mjs';

const TERRITORIES = ['United States', 'India', 'Japan', 'Germany', 'Brazil'];

const { values } = parseArgs({ options: { docs: { type: 'string' }, json: { type: 'string' } } });
if (values.docs === undefined) {
  console.error('Missing --docs DIR: a clone of github.com/axiomhq/docs (work tree or bare repository).');
  process.exit(2);
}

const pages = readPages(values.docs);
const queries = playgroundQueries(pages);
const sets = datasets();
const blocks = unlinkedBlocks(pages, queries, Object.keys(sets));
console.log(`${queries.length} Playground queries on ${new Set(queries.map((q) => q.page)).size} pages`);

await withLocalService(async (url) => {
  await loadDatasets(url, sets);
  const results = [];
  for (const query of queries) results.push({ ...query, ...(await run(url, query.apl)) });
  report(results, values.json);
  console.log(`\n${blocks.length} more code blocks querying these datasets, no Playground link's query, on ${new Set(blocks.map((q) => q.page)).size} pages`);
  const more = [];
  for (const query of blocks) more.push({ ...query, ...(await run(url, query.apl)) });
  report(more, values.json?.replace(/(\.json)?$/, '-blocks.json'));
});

/** The text a query is compared by: its whitespace collapsed. */
function normalized(apl) {
  return apl.replace(/\s+/g, ' ').trim();
}

/** The pages' kusto blocks that start with one of `names` (as ['name']) and are not one of `linked`'s queries, each once. */
function unlinkedBlocks(pages, linked, names) {
  const seen = new Set(linked.map((query) => normalized(query.apl)));
  const found = [];
  for (const { path, text } of pages) {
    for (const { apl } of kustoBlocks(text)) {
      const dataset = /^\[\s*'([^']+)'\s*\]/.exec(apl)?.[1];
      if (dataset === undefined || !names.includes(dataset) || seen.has(normalized(apl))) continue;
      seen.add(normalized(apl));
      found.push({ page: path, apl });
    }
  }
  return found;
}

/**
 * The `apl` of every Playground link's `initForm`. A link's URL may hold parentheses (the query's
 * own), so it ends at the parenthesis that closes the link. A few pages write quotes inside the
 * query unescaped; such a form is read as the text between `"apl":"` and the form's end.
 */
function playgroundQueries(pages) {
  const found = [];
  for (const { path, text } of pages) {
    let at = 0;
    while ((at = text.indexOf('initForm=', at)) >= 0) {
      let end = at + 'initForm='.length;
      for (let depth = 1; end < text.length && depth > 0 && text[end] !== '\n'; end++) {
        if (text[end] === '(') depth++;
        else if (text[end] === ')') depth--;
      }
      const raw = text.slice(at + 'initForm='.length, end - 1).split('&')[0] ?? '';
      at = end;
      const apl = formApl(raw);
      if (apl !== undefined) found.push({ page: path, apl });
    }
  }
  return found;
}

function formApl(raw) {
  let form;
  try {
    // The Playground reads the form as a query string, where '+' stands for a space.
    form = decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(form).apl;
  } catch {
    const match = /^\{"apl":"([\s\S]*)"(?:,"queryOptions":[\s\S]*)?\}$/.exec(form);
    return match?.[1]?.replaceAll('\\n', '\n').replaceAll('\\"', '"');
  }
}

/** The events of every dataset the pages query, by name (`otel-demo-traces` as one OTLP/JSON request). */
function datasets() {
  const now = Date.now();
  const sets = sampleDatasets(now);
  sets['sample-http-logs'] = [...httpLogs({ count: 3000, startMs: now - 7 * 86_400_000, spanMs: 7 * 86_400_000 })].map((event, i) => ({
    ...event,
    id: `u_${(i * 7919) % 500}`,
    // An array field, as the mv-expand page reads (from the index, so the rest stays as generated).
    territories: TERRITORIES.slice(i % TERRITORIES.length, (i % TERRITORIES.length) + (i % 3)),
  }));
  return sets;
}

async function loadDatasets(url, sets) {
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' };
  for (const [dataset, events] of Object.entries(sets)) {
    if (dataset === 'otel-demo-traces') continue;
    await post(`${url}/v1/datasets/${dataset}/ingest`, headers, events.map((event) => JSON.stringify(event)).join('\n'));
  }
  // The traces go in through OTLP, so that they get the hosted OTel layout (a timespan duration).
  await post(`${url}/v1/traces`, { ...headers, 'content-type': 'application/json', 'x-axiom-dataset': 'otel-demo-traces' }, JSON.stringify(sets['otel-demo-traces']));
}

async function post(target, headers, body) {
  const response = await fetch(target, { method: 'POST', headers, body });
  if (!response.ok) throw new Error(`POST ${target} answered ${response.status}: ${await response.text()}`);
}

async function run(url, apl) {
  const { status, message } = await queryApl(url, apl);
  return message === undefined ? { status } : { status, message };
}

function report(results, json) {
  const passed = results.filter((r) => r.status === 200).length;
  const faults = results.filter((r) => r.status >= 500).length;
  console.log(`runs: ${passed} of ${results.length} (${((100 * passed) / results.length).toFixed(1)}%); 5xx: ${faults}`);

  const bySection = new Map();
  for (const r of results) {
    const section = r.page.split('/').slice(0, r.page.startsWith('scalar-functions/') ? 2 : 1).join('/').replace(/\.mdx$/, '');
    const entry = bySection.get(section) ?? { total: 0, passed: 0 };
    entry.total++;
    if (r.status === 200) entry.passed++;
    bySection.set(section, entry);
  }
  console.log('\nby section:');
  for (const [section, { total, passed: ok }] of [...bySection].sort()) console.log(`  ${section.padEnd(44)} ${String(ok).padStart(4)} / ${total}`);

  const reasons = new Map();
  for (const r of results.filter((r) => r.status !== 200)) {
    const reason = `${r.status} ${reasonOf(r.message)}`;
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  console.log('\nwhy the rest fail (most frequent first):');
  for (const [reason, count] of [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${String(count).padStart(4)}  ${reason}`);

  if (json !== undefined) {
    writeFileSync(json, JSON.stringify(results.filter((r) => r.status !== 200), null, 2));
    console.log(`\nthe failures, with their queries: ${json}`);
  }
}

/** An error message without what varies from query to query: positions, code frames, quoted values. */
function reasonOf(message) {
  const first = String(message).split('\n')[0] ?? '';
  return first.replace(/^Line \d+, column \d+: /, '').replace(/'[^']*'|"[^"]*"/g, "'…'").replace(/\d+/g, 'N').slice(0, 110);
}
