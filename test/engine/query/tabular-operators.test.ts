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

const MESSAGES = [
  { _time: '2024-05-01T12:00:00Z', n: 1, uri: '/api/v1/resource?duration=200', id: 'usa-acmeinc-3iou24', content_type: 'application/charset=utf-8', kvdata: 'status=200; req_duration_ms=120', log: 'GET /home 200 123ms', user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36', trace_id: 'a1b2c3d4-frontend', AppName: 'Log: PodStatusUpdate (podName=nginx-pod, namespace=default, phase=Running, startTime=2023-05-14 08:30:00, nodeName=node-1, hostIP=192.168.1.1, podIP=10.1.1.1)' },
  { _time: '2024-05-01T12:00:01Z', n: 2, uri: '/api/v1/ping/user/textdata', id: 'eu-bigco-x1', content_type: 'text/html', kvdata: 'req_duration_ms="35 ms";status=404', log: 'POST /login 500 nonValidResponseTime', user_agent: 'curl/8.0', trace_id: 'e5f6g7h8-cartservice', AppName: 'other' },
  { _time: '2024-05-01T12:00:02Z', n: 3, uri: '/GET/api/items?status=200', id: 'x', kvdata: 'nothing here', log: 'PUT /api/data 2x1 456ms', user_agent: '' },
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
  await store.load('messages', MESSAGES);
  await store.load('github-pull-request-event', [
    { _time: '2024-05-01T12:00:00Z', id: 'pr1', title: 'fix: error on save', repo: 'axiomhq/docs' },
    { _time: '2024-05-01T12:00:01Z', id: 'pr2', title: 'feat: dark mode', repo: 'axiomhq/axiom-js' },
  ]);
  await store.load('search', [{ _time: '2024-05-01T12:00:00Z', x: 1 }]);
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

  it('searches a field named kind, which is not the kind= option', async () => {
    expect((await rows(`['otel-demo-traces'] | search kind:"server" | project span_id`)).map((row) => row.span_id)).toEqual(['s1']);
    expect((await rows(`['otel-demo-traces'] | search kind == "client" | project span_id`)).map((row) => row.span_id)).toEqual(['s2']);
  });

  it('starts a query with search in (datasets), names and patterns, over their union', async () => {
    expect((await rows(`search in (github*) "axiomhq" | project id`)).map((row) => row.id).sort()).toEqual(['p1', 'pr1', 'pr2']);
    expect((await rows(`search in (github*) "error" | project id, title`))).toEqual([{ id: 'pr1', title: 'fix: error on save' }]);
    expect(await ids(`search kind=case_sensitive in (['sample-http-logs']) "css"`)).toEqual(['u2']);
    expect(await rows(`search | count`)).toEqual([{ count: 1 }]);
    expect(await errorOf(`search "error"`)).toBe('line 1, column 1: a query that starts with search names the datasets to look in: search in ([\'my-dataset\']) "term", or [\'my-dataset\'] | search "term"');
    expect(await errorOf(`${LOGS} | search in (github*) "x"`)).toBe('line 1, column 31: search in (…) starts a query, such as search in (github*) "error"; after | search looks in the rows before it');
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
    expect(await ids(`${LOGS} | where * has "GET" or * has "text"`)).toEqual(['u1', 'u2', 'u3', 'u4']);
    expect(await ids(`${LOGS} | where * has "css" and req_duration_ms == 950`)).toEqual(['u2']);
    expect(await rows(`${LOGS} | where * has "GET" and * has "css" | summarize Count=count() by method, content_type`)).toEqual([{ method: 'GET', content_type: 'text/html', Count: 1 }]);
    expect(await rows(`${LOGS} | where * has "mumbai" | summarize avg(req_duration_ms)`)).toEqual([{ avg_req_duration_ms: 3 }]);
  });

  it('refuses * with other operators and in negated forms', async () => {
    expect(await errorOf(`${LOGS} | where * == "GET"`)).toBe("line 1, column 32: '*' stands for every field only before a string operator such as has, contains or matches regex, not '=='");
    expect(await errorOf(`${LOGS} | where *`)).toBe('line 1, column 30: \'*\' stands for every field only before a string operator, such as where * has "x", or as an argument of arg_max() and arg_min()');
    expect(await errorOf(`${LOGS} | where * !has "GET"`)).toBe("line 1, column 32: '* !has' is ambiguous; write not(* has …) for rows where no field matches");
  });
});

describe('project-reorder, project-away and project-keep', () => {
  it('puts the named fields first and the rest in their order', async () => {
    expect(await names(`${LOGS} | project-reorder _time, method, status, uri, req_duration_ms, ['geo.city'], ['geo.country']`)).toEqual([
      '_time', 'method', 'status', 'uri', 'req_duration_ms', 'geo.city', 'geo.country', '_sysTime', 'content_type', 'id', 'is_tls', 'message', 'user_agent',
    ]);
    expect(await names(`['otel-demo-traces'] | project-reorder _time, kind, ['service.name'], status_code, span_id, trace_id, duration`)).toEqual([
      '_time', 'kind', 'service.name', 'status_code', 'span_id', 'trace_id', 'duration', '_sysTime',
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
    expect(await names(`['github-push-event'] | project-reorder repo*, ref, push_id, num_commits, ['id'], size, size_large desc`)).toEqual([
      'repo', 'repo_owner', 'ref', 'push_id', 'num_commits', 'id', 'size', 'size_large', '_sysTime', '_time', 'b50', 'b9', 'commits',
    ]);
  });

  it("reads ['prefix']* as a wildcard in project-away and project-keep", async () => {
    expect(await names(`${LOGS} | project-away status*, user*, is*, ['geo.']*`)).toEqual(['_sysTime', '_time', 'content_type', 'id', 'message', 'method', 'req_duration_ms', 'uri']);
    expect(await names(`${LOGS} | project-keep req*, content*, ['geo.']*`)).toEqual(['content_type', 'geo.city', 'geo.country', 'req_duration_ms']);
    expect(await names(`['github-push-event'] | project-keep id*, ['commits']*, repo*, size*`)).toEqual(['commits', 'id', 'repo', 'repo_owner', 'size', 'size_large']);
  });

  it('says what is wrong, where', async () => {
    expect(await errorOf(`${LOGS} | project-reorder metod`)).toBe("line 1, column 40: unknown field 'metod'; did you mean 'method'?");
    expect(await errorOf(`${LOGS} | project-reorder method granny-up`)).toBe("line 1, column 54: expected 'granny-asc' or 'granny-desc', found 'up'");
  });
});

/** The named columns of `messages` in ingest order. */
async function parsed(apl: string, columns: string): Promise<unknown[][]> {
  return (await rows(`messages | ${apl} | sort by n asc | project ${columns}`)).map((row) => columns.split(', ').map((name) => row[name.replace(/^\['|'\]$/g, '')]));
}

describe('parse', () => {
  it('extracts what lies between the constant texts, anchored at both ends, * skipping any text', async () => {
    expect(await parsed(`parse uri with * 'duration=' req_duration_ms:int`, 'req_duration_ms')).toEqual([[200], [null], [null]]);
    expect(await parsed(`parse content_type with datatype '/' format`, 'datatype, format')).toEqual([['application', 'charset=utf-8'], ['text', 'html'], [null, null]]);
    expect(await parsed(`parse uri with '/api/v1/' endpoint`, 'endpoint')).toEqual([['resource?duration=200'], ['ping/user/textdata'], [null]]);
    expect(await parsed(`parse id with region '-' tenant '-' userId`, 'region, tenant, userId')).toEqual([['usa', 'acmeinc', '3iou24'], ['eu', 'bigco', 'x1'], [null, null, null]]);
    expect(await parsed(`parse user_agent with * '(' os_name ' ' os_version ';' * ')' *`, 'os_name, os_version')).toEqual([['Windows', 'NT 10.0'], [null, null], [null, null]]);
    expect(await parsed(`parse trace_id with * '-' ['service.name']`, "['service.name']")).toEqual([['frontend'], ['cartservice'], [null]]);
  });

  it('matches typed columns only where their type is, and converts them', async () => {
    const out = await result(`messages | parse log with method " " url " " status:int " " responseTime | sort by n asc | project method, url, status, responseTime`);
    expect(out.tables[0]?.fields.map((field) => [field.name, field.type])).toEqual([['method', 'string'], ['url', 'string'], ['status', 'integer'], ['responseTime', 'string']]);
    expect(await parsed(`parse log with method " " url " " status:int " " responseTime`, 'method, status, responseTime')).toEqual([
      ['GET', 200, '123ms'],
      ['POST', 500, 'nonValidResponseTime'],
      [null, null, null],
    ]);
    expect(await parsed(`parse log with * " " ms:real "ms"`, 'ms')).toEqual([[123], [null], [456]]);
  });

  it('leaves a number too large for a long null rather than failing the query', async () => {
    expect(await parsed(`extend big = strcat("n=", "99999999999999999999") | parse big with "n=" value:long`, 'value')).toEqual([[null], [null], [null]]);
    expect(await parsed(`extend when = "at 2024-05-01T10:00:00Z" | parse when with "at " t:datetime`, 't')).toEqual([['2024-05-01T10:00:00Z'], ['2024-05-01T10:00:00Z'], ['2024-05-01T10:00:00Z']]);
  });

  it('keeps the row in relaxed mode and leaves what does not convert null', async () => {
    expect(await parsed(`parse kind=relaxed log with method " " url " " status:int " " responseTime`, 'method, status, responseTime')).toEqual([
      ['GET', 200, '123ms'],
      ['POST', 500, 'nonValidResponseTime'],
      ['PUT', null, '456ms'],
    ]);
  });

  it('reads the texts as regular expressions with kind=regex, its own groups not counted as columns', async () => {
    const apl = `parse kind=regex AppName with @"Log: PodStatusUpdate \\(podName=" podName: string @", namespace=" namespace: string @", phase=" phase: string @", startTime=" startTime: datetime @", nodeName=" nodeName: string @", hostIP=" hostIP: string @", podIP=" podIP: string @"\\)"`;
    expect(await parsed(apl, 'podName, namespace, phase, startTime, nodeName, hostIP, podIP')).toEqual([
      ['nginx-pod', 'default', 'Running', '2023-05-14T08:30:00Z', 'node-1', '192.168.1.1', '10.1.1.1'],
      [null, null, null, null, null, null, null],
      [null, null, null, null, null, null, null],
    ]);
    expect(await parsed(`parse kind=regex id with "(us|eu)a?-" tenant @"-(\\w)" rest`, 'tenant, rest')).toEqual([['acmeinc', 'iou24'], ['bigco', '1'], [null, null]]);
    expect(await parsed(`parse kind=regex flags=i log with "get " path " .*"`, 'path')).toEqual([['/home'], [null], [null]]);
  });

  it('drops the rows the pattern does not match with parse-where', async () => {
    expect(await parsed(`parse-where uri with '/' method:string '/' * 'status=' status:string`, 'method, status')).toEqual([['GET', '200']]);
    expect(await parsed(`parse-where log with * " " code:long " " *`, 'code')).toEqual([[200], [500]]);
  });

  it('reads a pattern whose parts are separated by commas, as parse-where\'s comparisons write it', async () => {
    expect(await parsed(`parse-where uri with '/', method:string, '/', *, 'status=', status:string`, 'method, status')).toEqual([['GET', '200']]);
    expect(await parsed(`parse log with *, " ", code:long, " ", *`, 'code')).toEqual([[200], [500], [null]]);
    expect(await errorOf(`messages | parse log with * " " code:long,`)).toBe("line 1, column 43: expected another part of the pattern after ',', found the end of the query");
    expect(await errorOf(`messages | parse log with , " " code:long`)).toBe("line 1, column 27: expected '*', a string or a column name of the pattern, found ','");
  });

  it('replaces a field of the same name and says what is wrong, where', async () => {
    expect((await names(`${LOGS} | parse uri with '/' first '/' *`)).slice(-1)).toEqual(['first']);
    expect(await errorOf(`messages | parse log with a b`)).toBe("line 1, column 29: columns 'a' and 'b' follow one another with no text between them to tell where one ends");
    expect(await errorOf(`messages | parse log with * " " a:number`)).toMatch(/^line 1, column 35: unknown type 'number'; expected one of bool, /);
    expect(await errorOf(`messages | parse n with a "-" b`)).toBe('line 1, column 18: parse reads text, got long; convert it with tostring()');
    expect(await errorOf(`messages | parse kind=fuzzy log with a`)).toBe("line 1, column 23: unknown parse kind 'fuzzy'; expected simple, relaxed or regex");
    expect(await errorOf(`messages | parse log with`)).toBe('line 1, column 26: expected the pattern to parse, such as * "id=" id:long, found the end of the query');
    expect(await errorOf(`messages | parse flags=x log with a`)).toBe('line 1, column 24: flags=… applies only to kind=regex');
  });
});

describe('parse-kv', () => {
  it('extracts the listed keys, replacing fields of the same name; a missing key is null', async () => {
    expect(await parsed(`parse-kv kvdata as (status, req_duration_ms) with (pair_delimiter=';', kv_delimiter='=')`, 'status, req_duration_ms')).toEqual([
      ['200', '120'],
      ['404', '"35 ms"'],
      [null, null],
    ]);
    expect(await parsed(`parse-kv kvdata as (status:long, req_duration_ms) with (pair_delimiter=';', kv_delimiter='=', quote='"')`, 'status, req_duration_ms')).toEqual([
      [200, '120'],
      [404, '35 ms'],
      [null, null],
    ]);
  });

  it('says what is wrong, where', async () => {
    expect(await errorOf(`messages | parse-kv kvdata as (a) with (pair_delim=';')`)).toBe("line 1, column 41: unknown parse-kv option 'pair_delim'; expected pair_delimiter, kv_delimiter, quote");
    expect(await errorOf(`messages | parse-kv kvdata as (a) with (quote='')`)).toBe("line 1, column 47: parse-kv option 'quote' takes a non-empty string, such as quote=';'");
  });
});

describe('extend-valid, sample, redact', () => {
  it('extend-valid keeps the value before where the new one is not valid', async () => {
    expect(await parsed(`extend-valid first = extract('^([A-Za-z])', 1, user_agent)`, 'first')).toEqual([['M'], ['c'], [null]]);
    expect(await parsed(`extend-valid user_agent = extract('^(M)', 1, user_agent)`, 'user_agent')).toEqual([['M'], ['curl/8.0'], ['']]);
    expect(await parsed(`extend-valid upper = toupper(content_type)`, 'upper')).toEqual([['APPLICATION/CHARSET=UTF-8'], ['TEXT/HTML'], [null]]);
    expect(await errorOf(`messages | extend-valid n = "x"`)).toBe("line 1, column 25: extend-valid keeps 'n' (long) where the new value is not valid, so the new value must be a long too, got string");
  });

  it('sample keeps about the proportion of rows asked for', async () => {
    const many = Array.from({ length: 2000 }, (_, i) => ({ _time: '2024-05-01T12:00:00Z', i }));
    await fixture.load('many', many);
    const kept = (await rows(`many | sample 0.25 | count`))[0]?.count as number;
    expect(kept).toBeGreaterThan(400);
    expect(kept).toBeLessThan(600);
    expect(await errorOf(`many | sample 5`)).toBe('line 1, column 15: sample takes the proportion of rows to keep, a constant greater than 0 and less than 1, such as sample 0.05');
  });

  it('redact replaces each matched character by a one-character token, a match by a longer one, or a hash', async () => {
    expect((await rows(`${LOGS} | where id == "u2" | redact replaceToken="x" @'.*' on ['geo.city'], ['geo.country'] | project ['geo.city'], ['geo.country'], method`))[0]).toEqual({
      'geo.city': 'xxxxxxxxxxx',
      'geo.country': 'xxxxxxxxxxxxx',
      method: 'POST',
    });
    expect(await parsed(`extend s = strcat("SSN ", n, "23-12-1234.pdf") | redact @'\\d{3}-\\d{2}-\\d{4}' on s`, 's')).toEqual([['SSN ***********.pdf'], ['SSN ***********.pdf'], ['SSN ***********.pdf']]);
    expect(await parsed(`redact replaceToken="<REDACTED>" redactGroups=true @'.*/(.*)' on uri`, 'uri')).toEqual([['/api/v1/<REDACTED>'], ['/api/v1/ping/user/<REDACTED>'], ['/GET/api/<REDACTED>']]);
    expect(await parsed(`redact redactGroups=true @'(\\w+)-(\\w+)-' on id`, 'id')).toEqual([['***-*******-3iou24'], ['**-*****-x1'], ['x']]);
    const hashed = await parsed(`redact replaceHash=true @'.*' on trace_id`, 'trace_id');
    expect(hashed[0]?.[0]).toMatch(/^[A-Za-z0-9+/]{8}$/);
    expect(hashed[0]?.[0]).not.toBe(hashed[1]?.[0]);
    // Every string field without on; other fields stay.
    expect(await parsed(`redact @'[0-9]' | where n == 3`, 'uri, n')).toEqual([['/GET/api/items?status=***', 3]]);
  });

  it('redact says what is wrong, where', async () => {
    expect(await errorOf(`messages | redact replaceHash=true replaceToken="x" @'a'`)).toBe('line 1, column 36: replaceToken and replaceHash=true cannot be used together: a match is replaced by one or the other');
    expect(await errorOf(`messages | redact redactGroups=true @'a|b'`)).toBe('line 1, column 37: redactGroups=true needs a pattern without | outside its groups; put the alternatives inside a group');
    expect(await errorOf(`messages | redact @'a' on n`)).toBe("line 1, column 27: redact rewrites string fields, and 'n' is a long");
    expect(await errorOf(`messages | redact tokn="x" @'a'`)).toBe("line 1, column 19: unknown redact option 'tokn'; expected replaceToken, replaceHash, redactGroups");
  });
});

describe('warnings in status.messages', () => {
  const ALWAYS_TRUE = {
    priority: 'warn',
    count: 1,
    code: 'apl_whereclausealwaysevaluatestoTRUEwhichwillincludealldata_1',
    msg: 'where clause always evaluates to TRUE, which will include all data',
  };

  async function messages(apl: string, format: 'tabular' | 'legacy' = 'tabular'): Promise<unknown[]> {
    const { result: r } = await runApl({ apl, format, ...WINDOW }, { reader: fixture.store, now: () => NOW });
    return [...((r as TabularResult).status.messages ?? [])];
  }

  it('says a where that is always true includes all data, in both result formats', async () => {
    expect(await messages(`${LOGS} | where true | count`)).toEqual([ALWAYS_TRUE]);
    expect(await messages(`${LOGS} | where 1 == 1 | count`, 'legacy')).toEqual([ALWAYS_TRUE]);
    expect(await messages(`${LOGS} | where 0 == 0 and not(false) | where "a" =~ "A" | count`)).toEqual([{ ...ALWAYS_TRUE, count: 2 }]);
    expect(await messages(`${LOGS} | where method == "GET" | count`)).toEqual([]);
    expect(await messages(`${LOGS} | where 1 == 2 or method == "GET" | count`)).toEqual([]);
  });

  it('ignores an unknown set option with a warning, and compares without converting under set stricttypes', async () => {
    expect(await messages(`set fuzzy = 1; ${LOGS} | count`)).toEqual([
      {
        priority: 'warn',
        count: 1,
        code: 'apl_unknownqueryoptionfuzzyisignoredtheoptionsarestricttypes_1',
        msg: "unknown query option 'fuzzy' is ignored; the options are stricttypes",
      },
    ]);
    expect(await ids(`${LOGS} | where status == 500`)).toEqual(['u2']);
    expect(await ids(`set stricttypes; ${LOGS} | where status == "500"`)).toEqual(['u2']);
    expect(await errorOf(`set stricttypes;\n${LOGS} | where status == 500`)).toBe(
      "line 2, column 30: with set stricttypes, string and long are not compared using '=='; convert one side, such as with tostring() or toint()",
    );
    expect(await ids(`set stricttypes = false; ${LOGS} | where status == 500`)).toEqual(['u2']);
    expect(await errorOf(`set stricttypes = 3; ${LOGS} | count`)).toBe('line 1, column 19: set stricttypes takes true or false, or no value (true)');
  });
});
