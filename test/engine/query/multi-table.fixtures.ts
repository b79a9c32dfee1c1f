/**
 * Small datasets shaped like the APL reference's sample datasets (the playground's field names),
 * for the tests of statements and of the operators that read several tables.
 */

export const HTTP_LOGS = [
  { _time: '2024-05-01T10:00:00Z', id: 'u1', status: '200', method: 'GET', uri: '/a', req_duration_ms: 10.5, geo: { city: 'London', country: 'United Kingdom' }, territories: ['United States', 'India'] },
  { _time: '2024-05-01T10:01:00Z', id: 'u2', status: '500', method: 'POST', uri: '/b', req_duration_ms: 200, geo: { city: 'Berlin', country: 'Germany' }, territories: ['Japan'] },
  { _time: '2024-05-01T10:02:30Z', id: 'u3', status: '200', method: 'GET', uri: '/c', req_duration_ms: 30, geo: { city: 'Paris', country: 'France' }, territories: [] },
  { _time: '2024-05-01T10:04:00Z', id: 'u1', status: '404', method: 'GET', uri: '/a', req_duration_ms: 5, geo: { city: 'London', country: 'United Kingdom' }, territories: ['United States'] },
  { _time: '2024-05-01T10:04:30Z', id: 'u4', status: '500', method: 'PUT', uri: '/d', req_duration_ms: 80, geo: { city: 'Berlin', country: 'Germany' } },
];

export const TRACES = [
  { _time: '2024-05-01T10:00:00Z', trace_id: 't1', span_id: 's1', service: { name: 'frontend' }, kind: 'server', status_code: 'OK' },
  { _time: '2024-05-01T10:00:01Z', trace_id: 't1', span_id: 's2', service: { name: 'cartservice' }, kind: 'client', status_code: 'OK' },
  { _time: '2024-05-01T10:00:02Z', trace_id: 't2', span_id: 's3', service: { name: 'frontend' }, kind: 'server', status_code: 'ERROR' },
  { _time: '2024-05-01T10:00:03Z', trace_id: 't3', span_id: 's4', service: { name: 'loadgenerator' }, kind: 'client', status_code: 'OK' },
];

export const LOGS = [
  { _time: '2024-05-01T10:00:00.5Z', trace_id: 't1', severity: 'info', body: 'cart loaded' },
  { _time: '2024-05-01T10:00:02.5Z', trace_id: 't2', severity: 'error', body: 'checkout failed' },
  { _time: '2024-05-01T10:00:02.7Z', trace_id: 't2', severity: 'warn', body: 'retrying' },
  { _time: '2024-05-01T10:00:09Z', trace_id: 't9', severity: 'info', body: 'orphan' },
];

export const PUSH_EVENTS = [
  { _time: '2024-05-01T09:00:00Z', id: 1, repo: 'axiomhq/axiom', actor: 'github-actions[bot]', commits: 2, head: 'abc' },
  { _time: '2024-05-01T09:30:00Z', id: 2, repo: 'axiomhq/docs', actor: 'alice', commits: 1, head: 'def' },
];

export const PULL_REQUEST_EVENTS = [
  { _time: '2024-05-01T09:10:00Z', id: 10, repo: 'axiomhq/axiom', actor: 'bob', merged: true },
  { _time: '2024-05-01T09:20:00Z', id: 11, repo: 'axiomhq/docs', actor: 'github-actions[bot]', merged: false },
  { _time: '2024-05-01T09:40:00Z', id: 12, repo: 'axiomhq/cli', actor: 'alice', merged: true },
];
