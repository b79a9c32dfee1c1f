import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from '../../../src/engine/apl/parser.js';
import { checkQuery } from '../../../src/engine/check/query.js';
import { runApl } from '../../../src/engine/query/run-apl.js';
import type { TabularResult } from '../../../src/engine/results/tabular.js';
import { compilePlan } from '../../../src/engine/sql/compile.js';
import { useTestStore } from '../../helpers/event-store.js';
import { tableRows } from '../helpers/reference.js';

/**
 * Field names and values made to break SQL built by pasting text — quotes, `;`, `--`, `")`,
 * NUL, unicode, placeholders, names equal to generated identifiers — go through ingest and
 * queries and come back as data. The SQL text never contains them: they reach DuckDB only as
 * catalog-mapped column names and bound parameters.
 */

type HostileEvent = { i: number; v: string } & Record<string, unknown>;
const EVENTS = JSON.parse(readFileSync(new URL('../../fixtures/engine/hostile-events.json', import.meta.url), 'utf8')) as HostileEvent[];
const NAMES = EVENTS.map((event) => Object.keys(event).find((key) => !['_time', 'i', 'v'].includes(key)) as string);
const WINDOW = { startTime: '2023-01-01T00:00:00Z', endTime: '2025-01-01T00:00:00Z' };

/** An APL string literal of any text: double quotes, backslash escapes. */
function aplString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\0/g, '\\0')}"`;
}

/** A bracketed APL field name of any text. */
function field(name: string): string {
  return `[${aplString(name)}]`;
}

const fixture = useTestStore(async (store) => {
  await store.load('hostile', EVENTS);
  await store.load('bystander', [{ _time: '2024-01-01T00:00:00Z', x: 1 }]);
});

async function rows(apl: string): Promise<Record<string, unknown>[]> {
  const { result } = await runApl({ apl, format: 'tabular', ...WINDOW }, { reader: fixture.store });
  return tableRows((result as TabularResult).tables[0] as never);
}

describe('hostile field names and values', () => {
  it('keeps every name as its own case-sensitive field', () => {
    const names = fixture.store.schema('hostile')?.fields.map((f) => f.name) ?? [];
    for (const name of NAMES) expect(names).toContain(name);
    expect(names.filter((name) => name.toLowerCase() === 'status')).toEqual(['status', 'Status', 'STATUS']);
  });

  it.each(EVENTS.map((event, index) => [index, event] as const))('projects and filters field %i by its name and value', async (index, event) => {
    const name = NAMES[index] as string;
    const apl = `['hostile'] | where ${field(name)} == ${aplString(event.v)} | project i, ${field(name)}`;
    expect(await rows(apl)).toEqual([{ i: event.i, [name]: event.v }]);
  });

  it.each(EVENTS.map((event) => [event.v] as const))('matches the value %j exactly with ==, in, contains, startswith and has', async (value) => {
    const expected = EVENTS.filter((event) => event.v === value).map((event) => ({ i: event.i }));
    const v = aplString(value);
    expect(await rows(`hostile | where v == ${v} | project i`)).toEqual(expected);
    expect(await rows(`hostile | where v in (${v}, "") | project i | sort by i desc`)).toEqual(
      EVENTS.filter((event) => event.v === value || event.v === '').map((event) => ({ i: event.i })).sort((a, b) => b.i - a.i),
    );
    expect(await rows(`hostile | where v contains_cs ${v} | project i`)).toEqual(EVENTS.filter((event) => event.v.includes(value)).map((event) => ({ i: event.i })).reverse());
    expect(await rows(`hostile | where v startswith_cs ${v} | project i`)).toEqual(EVENTS.filter((event) => event.v.startsWith(value)).map((event) => ({ i: event.i })).reverse());
    expect(await rows(`hostile | where v has_cs ${v} | count`)).toHaveLength(1);
  });

  it('names extended and summarized columns with hostile names', async () => {
    const out = await rows(`hostile | extend ${field(NAMES[0] as string)} = strcat(v, ${aplString("'; --")}) | summarize ${field(NAMES[9] as string)} = count() by ${field(NAMES[0] as string)} | sort by ${field(NAMES[9] as string)} | take 1`);
    expect(Object.keys(out[0] ?? {})).toEqual([NAMES[0], NAMES[9]]);
  });

  it('never puts a name or a value into the SQL text', () => {
    const schema = fixture.store.schema('hostile');
    if (!schema) throw new Error('no schema');
    for (const [index, event] of EVENTS.entries()) {
      const name = NAMES[index] as string;
      const apl = `hostile | where ${field(name)} == ${aplString(event.v)} or v has ${aplString(event.v)} | extend ${field(`${name}2`)} = ${aplString(event.v)} | summarize count() by ${field(name)}`;
      const checked = checkQuery(parse(apl), schema, { start: 0n, end: 1n << 62n, now: 1n << 62n, defaultLimit: 1000 });
      const { sql, params } = compilePlan(checked.plan);
      // "NULL" is also a keyword of the SQL the compiler writes itself.
      if (event.v.length > 2 && !/^null$/i.test(event.v)) expect(sql).not.toContain(event.v);
      if (name.length > 2 && !/^(f1|c1|ds_1)$/.test(name)) expect(sql).not.toContain(name);
      expect(params).toContain(event.v);
    }
  });

  it('never puts a search term, a parse pattern, a parse-kv delimiter or a redact pattern into the SQL text', () => {
    const schema = fixture.store.schema('hostile');
    if (!schema) throw new Error('no schema');
    for (const [index, event] of EVENTS.entries()) {
      if (event.v.length <= 2 || /^null$/i.test(event.v)) continue;
      const name = NAMES[index] as string;
      const v = aplString(event.v);
      const apl = [
        `hostile | search ${v} or ${field(name)}:${v} or "*${event.v.replace(/[\\"]/g, '')}*"`,
        `parse v with * ${v} a:long ${v} *`,
        `parse kind=regex v with ${v} b`,
        `parse-kv v as (${field(name)}) with (pair_delimiter=${v}, kv_delimiter=${v}, quote=${v})`,
        `redact replaceToken=${v} ${v} on v`,
        `where * has ${v}`,
      ].join(' | ');
      const checked = checkQuery(parse(apl), schema, { start: 0n, end: 1n << 62n, now: 1n << 62n, defaultLimit: 1000 });
      const { sql } = compilePlan(checked.plan);
      expect(sql).not.toContain(event.v);
    }
  });

  it('leaves the data intact after all of it', async () => {
    expect(await rows('hostile | count')).toEqual([{ count: EVENTS.length }]);
    expect(await rows('bystander | count')).toEqual([{ count: 1 }]);
    expect(fixture.store.datasets()).toEqual(['bystander', 'hostile']);
  });

  it('answers a hostile dataset name as not found, quoting it', async () => {
    const name = `x"); DROP TABLE ds_1; --`;
    await expect(runApl({ apl: `${field(name)} | count`, format: 'tabular' }, { reader: fixture.store })).rejects.toMatchObject({
      code: 'not_found',
      message: `Dataset ${JSON.stringify(name)} not found.`,
    });
  });
});
