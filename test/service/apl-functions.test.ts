import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useLocalService } from '../helpers/local-service.js';

/**
 * The datetime, hash, IP, pair, metadata, SQL and GenAI families over HTTP on the real local
 * service: events in through the ingest endpoint, the functions' values and errors out of
 * `/v1/datasets/_apl` as a client reads them.
 */

const service = useLocalService();
const WINDOW = { startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-02T00:00:00Z' };

const EVENTS = [
  {
    _time: '2024-05-01T12:00:00Z',
    client_ip: '192.168.1.20',
    note: 'from 10.1.2.3, retried',
    user: 'ana',
    messages: JSON.stringify([{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello!' }]),
  },
  { _time: '2024-05-01T13:30:00Z', client_ip: '8.8.8.8', note: 'none', user: 'bo', messages: '[]' },
];

beforeAll(async () => {
  const status = await service.axiom.ingest('fn-logs', EVENTS);
  expect(status).toMatchObject({ ingested: EVENTS.length, failed: 0 });
});

async function apl(query: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${service.url}/v1/datasets/_apl?format=tabular`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${service.token}` },
    body: JSON.stringify({ apl: query, ...WINDOW }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The rows of the first table, as objects. */
async function rows(query: string): Promise<Record<string, unknown>[]> {
  const reply = await apl(query);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const table = (reply.body.tables as { fields: { name: string }[]; columns: unknown[][] }[])[0];
  if (!table) return [];
  const count = table.columns[0]?.length ?? 0;
  return Array.from({ length: count }, (_, row) => Object.fromEntries(table.fields.map((field, column) => [field.name, table.columns[column]?.[row]])));
}

describe('new function families over HTTP', () => {
  it('answers each family on ingested events', async () => {
    const result = await rows(
      "['fn-logs'] | sort by _time asc | project hour = hourofday(_time), day = format_datetime(_time, 'yyyy-MM-dd'), week = week_of_year(_time), " +
        'private = ipv4_is_private(client_ip), seen = has_ipv4(note, "10.1.2.3"), md5 = hash_md5(user), sha512 = hash_sha512(user), ' +
        "tag = parse_pair(strcat('user:', user)).value, turns = genai_conversation_turns(messages), reply = genai_extract_assistant_response(messages), " +
        'ingested = ingestion_time() >= _time',
    );
    const digest = (algorithm: string, text: string): string => createHash(algorithm).update(text).digest('hex');
    expect(result).toEqual([
      { hour: 12, day: '2024-05-01', week: 18, private: true, seen: true, md5: digest('md5', 'ana'), sha512: digest('sha512', 'ana'), tag: 'ana', turns: 1, reply: 'Hello!', ingested: true },
      { hour: 13, day: '2024-05-01', week: 18, private: false, seen: false, md5: digest('md5', 'bo'), sha512: digest('sha512', 'bo'), tag: 'bo', turns: 0, reply: '', ingested: true },
    ]);
  });

  it('reads a SQL statement given as a constant', async () => {
    expect(await rows("['fn-logs'] | take 1 | project sql = format_sql(parse_sql('SELECT a FROM t WHERE b = 1'))")).toEqual([{ sql: 'select a from t where b = 1' }]);
  });

  it('answers what cannot run locally with a positioned 400 that says why', async () => {
    const reply = await apl("['fn-logs']\n| extend geo = geo_info_from_ip_address(client_ip)");
    const message = 'geo_info_from_ip_address() is not available in the local service: it needs a geolocation database, which only the hosted service has';
    expect(reply).toEqual({
      status: 400,
      body: { code: 400, message: `line 2, column 41: ${message}`, detail: { errorType: 1, compileErrorCode: 9, line: 2, column: 41, message } },
    });
  });
});
