import { describe, expect, it } from 'vitest';
import { AplError } from '../../../src/engine/apl/errors.js';
import { runApl } from '../../../src/engine/query/run-apl.js';
import type { TabularResult } from '../../../src/engine/results/tabular.js';
import { useTestStore } from '../../helpers/event-store.js';
import { tableRows } from '../helpers/reference.js';

/**
 * The single-table operators of the APL reference's tabular-operators pages — search,
 * `where * …`, project-reorder/-away/-keep with wildcards, parse, parse-kv, parse-where,
 * extend-valid, sample, redact — through the whole engine, on small datasets with the
 * playground's field names. The expected rows are written out by hand from the events below.
 */

const HTTP = [
  { _time: '2024-05-01T12:00:00Z', id: 'u1', method: 'GET', uri: '/img/logo.jpeg', status: '200', content_type: 'image/jpeg', req_duration_ms: 12.5, is_tls: true, user_agent: 'Mozilla/5.0 (X11)', geo: { city: 'São Paulo', country: 'Brazil' } },
  { _time: '2024-05-01T12:00:01Z', id: 'u2', method: 'POST', uri: '/api/brazilian', status: '500', content_type: 'text/css', req_duration_ms: 950, is_tls: false, user_agent: 'curl/8.0', geo: { city: 'West Covina', country: 'United States' } },
  { _time: '2024-05-01T12:00:02Z', id: 'u3', method: 'GET', uri: '/index.html', status: '404', content_type: 'text/html', req_duration_ms: 3, is_tls: false, user_agent: 'python-requests', geo: { city: 'Mumbai', country: 'India' }, message: 'CSS parse error' },
  { _time: '2024-05-01T12:00:03Z', id: 'u4', method: 'PUT', uri: '/a/Padding-FG', status: '201', content_type: 'application/json', req_duration_ms: 40, is_tls: true, user_agent: 'Mozilla/5.0 (Mac)', geo: { city: 'Berlin', country: 'Germany' }, message: 'text written' },
];

const TRACES = [
  { _time: '2024-05-01T12:00:00Z', trace_id: 't1', span_id: 's1', duration: '00:00:01', service: { name: 'frontend' }, kind: 'server', status_code: 'OK' },
  { _time: '2024-05-01T12:00:01Z', trace_id: 't1', span_id: 's2', duration: '00:00:05', service: { name: 'cart' }, kind: 'client', status_code: 'ERROR' },
];

const PUSHES = [
  { _time: '2024-05-01T12:00:00Z', id: 'p1', push_id: 7, ref: 'refs/heads/main', size: 2, size_large: 20, num_commits: 2, repo: 'axiomhq/docs', repo_owner: 'axiomhq', b9: 1, b50: 2, commits: 'a,b' },
];

const WINDOW = { startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-02T00:00:00Z' };
const NOW = 1_714_608_000_000_000_000n;

const fixture = useTestStore(async (store) => {
  await store.load('sample-http-logs', HTTP);
  await store.load('otel-demo-traces', TRACES);
  await store.load('github-push-event', PUSHES);
});

async function result(apl: string): Promise<TabularResult> {
  const { result: r } = await runApl({ apl, format: 'tabular', ...WINDOW }, { reader: fixture.store, now: () => NOW });
  return r as TabularResult;
}

async function rows(apl: string): Promise<Record<string, unknown>[]> {
  const table = (await result(apl)).tables[0];
  return table ? tableRows(table as never) : [];
}

/** The ids of the rows a query keeps, sorted. */
async function ids(apl: string): Promise<string[]> {
  return (await rows(`${apl} | project id`)).map((row) => String(row.id)).sort();
}

async function names(apl: string): Promise<string[]> {
  return ((await result(`${apl} | take 1`)).tables[0]?.fields ?? []).map((field) => field.name);
}

async function errorOf(apl: string): Promise<string> {
  const error = await result(apl).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AplError)) throw new Error(`Expected ${apl} to fail the check, got ${String(error)}`);
  return error.message;
}

const LOGS = "['sample-http-logs']";

describe('search', () => {
  it('matches a term as has does: whole terms, case-insensitively, in any field', async () => {
    expect(await ids(`${LOGS} | search "image"`)).toEqual(['u1']);
    expect(await ids(`${LOGS} | search "brazil"`)).toEqual(['u1']);
    expect(await ids(`${LOGS} | search kind=default "INDIA"`)).toEqual(['u3']);
    // Numbers and bools are searched as their text.
    expect(await ids(`${LOGS} | search "950"`)).toEqual(['u2']);
    expect(await ids(`${LOGS} | search "jpeg" and ("GET" or "true")`)).toEqual(['u1']);
  });

  it('reads *x* as contains, x* as hasprefix and *x as hassuffix, never the asterisks literally', async () => {
    expect(await ids(`${LOGS} | search "*brazil*"`)).toEqual(['u1', 'u2']);
    expect(await ids(`${LOGS} | search "brazil*"`)).toEqual(['u1', 'u2']);
    expect(await ids(`${LOGS} | search "*ilian"`)).toEqual(['u2']);
    expect(await ids(`${LOGS} | search "*razi"`)).toEqual([]);
  });

  it('reads a * or ? inside a term as a regular expression bounded at terms', async () => {
    expect(await ids(`${LOGS} | search "Pad*FG"`)).toEqual(['u4']);
    expect(await ids(`${LOGS} | search "Mumb?i"`)).toEqual(['u3']);
    expect(await ids(`${LOGS} | search "umb?i"`)).toEqual([]);
    expect(await ids(`${LOGS} | search kind=case_sensitive "pad*fg"`)).toEqual([]);
    // Regular expression characters in a term are plain characters.
    expect(await ids(`${LOGS} | search "*.jpeg"`)).toEqual(['u1']);
    expect(await ids(`${LOGS} | search "*(X1?)*"`)).toEqual(['u1']);
    expect(await ids(`${LOGS} | search "*[X1?)*"`)).toEqual([]);
  });

  it('compares case-sensitively with kind=case_sensitive', async () => {
    expect(await ids(`${LOGS} | search kind=case_sensitive "css"`)).toEqual(['u2']);
    expect(await ids(`${LOGS} | search kind=case_insensitive "CSS"`)).toEqual(['u2', 'u3']);
    expect(await ids(`${LOGS} | search "CSS"`)).toEqual(['u2', 'u3']);
  });

  it('restricts a term to one field with field:term, and combines with and, or, not and expressions', async () => {
    expect(await ids(`${LOGS} | search method:"GET" or user_agent :"Mozilla"`)).toEqual(['u1', 'u3', 'u4']);
    expect(await ids(`${LOGS} | search ['geo.country']:"brazil"`)).toEqual(['u1']);
    expect(await ids(`${LOGS} | search geo.city:"*covina"`)).toEqual(['u2']);
    expect(await ids(`${LOGS} | search "Mozilla" and not method:"PUT"`)).toEqual(['u1']);
    expect(await ids(`${LOGS} | search "get" and _time > datetime('2024-05-01T12:00:01Z')`)).toEqual(['u3']);
    expect(await ids(`${LOGS} | search status == "500" or (req_duration_ms > 10 and req_duration_ms < 20)`)).toEqual(['u1', 'u2']);
    expect(await ids(`${LOGS} | search (req_duration_ms + 1) > 900`)).toEqual(['u2']);
    expect(await ids(`${LOGS} | search method matches regex "^P"`)).toEqual(['u2', 'u4']);
    expect(await ids(`${LOGS} | search "GET" or "covina"`)).toEqual(['u1', 'u2', 'u3']);
  });

  it('keeps every row with search *', async () => {
    expect(await ids(`${LOGS} | search *`)).toEqual(['u1', 'u2', 'u3', 'u4']);
  });

  it('says what is wrong, where', async () => {
    expect(await errorOf(`${LOGS} | search metod:"GET"`)).toBe("line 1, column 31: unknown field 'metod'; did you mean 'method'?");
    expect(await errorOf(`${LOGS} | search method:GET`)).toBe("line 1, column 38: expected the term to find in 'method' as a string, such as method:\"GET\", found 'GET'");
    expect(await errorOf(`${LOGS} | search 42`)).toBe('line 1, column 31: a search predicate must be a term such as "error" or a bool expression, got long');
    expect(await errorOf(`${LOGS} | search`)).toBe('line 1, column 30: expected what to search for, such as "timeout", "*time*" or method:"GET", found the end of the query');
    expect(await errorOf(`${LOGS} | search kind=fuzzy "x"`)).toBe("line 1, column 36: unknown search kind 'fuzzy'; expected case_sensitive or case_insensitive");
    expect(await errorOf(`${LOGS} | search in (github*) "x"`)).toMatch(/^line 1, column 31: search in \(…\) searches several datasets/);
  });
});

describe('where * …', () => {
  it('tests every searchable field with has and the other string operators', async () => {
    expect(await ids(`${LOGS} | where * has "GET"`)).toEqual(['u1', 'u3']);
    expect(await ids(`${LOGS} | where * contains "brazil"`)).toEqual(['u1', 'u2']);
    expect(await ids(`${LOGS} | where * has_cs "css"`)).toEqual(['u2']);
    expect(await ids(`${LOGS} | where * startswith "/api"`)).toEqual(['u2']);
    expect(await ids(`${LOGS} | where * matches regex "^Mum"`)).toEqual(['u3']);
    expect(await ids(`${LOGS} | where not(* has "GET") and is_tls`)).toEqual(['u4']);
  });

  it('refuses * with other operators and in negated forms', async () => {
    expect(await errorOf(`${LOGS} | where * == "GET"`)).toBe("line 1, column 32: '*' stands for every field only before a string operator such as has, contains or matches regex, not '=='");
    expect(await errorOf(`${LOGS} | where * !has "GET"`)).toBe("line 1, column 32: '* !has' is ambiguous; write not(* has …) for rows where no field matches");
  });
});

describe('project-reorder, project-away and project-keep', () => {
  it('puts the named fields first and the rest in their order', async () => {
    expect(await names(`${LOGS} | project-reorder _time, method, status, uri, req_duration_ms, ['geo.city'], ['geo.country']`)).toEqual([
      '_time', 'method', 'status', 'uri', 'req_duration_ms', 'geo.city', 'geo.country', '_sysTime', 'content_type', 'id', 'is_tls', 'message', 'user_agent',
    ]);
    expect(await names(`['otel-demo-traces'] | project-reorder _time, ['service.name'], kind, status_code, trace_id, span_id, duration`)).toEqual([
      '_time', 'service.name', 'kind', 'status_code', 'trace_id', 'span_id', 'duration', '_sysTime',
    ]);
  });

  it('takes * as the place of every field no other key names: trace_id, *, span_id ends with span_id', async () => {
    expect(await names(`['otel-demo-traces'] | project-reorder trace_id, *, span_id`)).toEqual([
      'trace_id', '_sysTime', '_time', 'duration', 'kind', 'service.name', 'status_code', 'span_id',
    ]);
    expect(await names(`['otel-demo-traces'] | project-reorder * desc`)).toEqual([
      'trace_id', 'status_code', 'span_id', 'service.name', 'kind', 'duration', '_time', '_sysTime',
    ]);
  });

  it('sorts the fields a wildcard takes by name with asc, desc and the granny forms', async () => {
    const push = "['github-push-event'] | project-away _time, _sysTime, commits, id, push_id, ref, num_commits";
    expect(await names(`${push} | project-reorder repo*, size*, b* asc`)).toEqual(['repo', 'repo_owner', 'size', 'size_large', 'b50', 'b9']);
    expect(await names(`${push} | project-reorder b* granny-asc, size* desc`)).toEqual(['b9', 'b50', 'size_large', 'size', 'repo', 'repo_owner']);
    expect(await names(`${push} | project-reorder b* granny-desc`)).toEqual(['b50', 'b9', 'repo', 'repo_owner', 'size', 'size_large']);
    expect(await names(`['github-push-event'] | project-reorder repo*, num_commits, push_id, ref, size, ['id'], size_large desc`)).toEqual([
      'repo', 'repo_owner', 'num_commits', 'push_id', 'ref', 'size', 'id', 'size_large', '_sysTime', '_time', 'b50', 'b9', 'commits',
    ]);
  });

  it("reads ['prefix']* as a wildcard in project-away and project-keep", async () => {
    expect(await names(`${LOGS} | project-away status*, user*, is*, ['geo.']*`)).toEqual(['_sysTime', '_time', 'content_type', 'id', 'message', 'method', 'req_duration_ms', 'uri']);
    expect(await names(`${LOGS} | project-keep req*, content*, ['geo.']*`)).toEqual(['content_type', 'geo.city', 'geo.country', 'req_duration_ms']);
    expect(await names(`['github-push-event'] | project-keep size*, repo*, ['commits']*, id*`)).toEqual(['commits', 'id', 'repo', 'repo_owner', 'size', 'size_large']);
  });

  it('says what is wrong, where', async () => {
    expect(await errorOf(`${LOGS} | project-reorder metod`)).toBe("line 1, column 40: unknown field 'metod'; did you mean 'method'?");
    expect(await errorOf(`${LOGS} | project-reorder method granny-up`)).toBe("line 1, column 54: expected 'granny-asc' or 'granny-desc', found 'up'");
  });
});
