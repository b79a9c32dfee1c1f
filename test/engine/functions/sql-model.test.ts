import { describe, expect, it } from 'vitest';
import { SqlModelError, formatSqlModel, parseSqlModel } from '../../../src/engine/functions/sql-model.js';

/** parse_sql's model and format_sql's text: what each clause becomes, and text → model → text → model is stable. */

describe('parse_sql model', () => {
  it('reads the clauses the reference shows, and the others in the same pattern', () => {
    expect(parseSqlModel('select distinct a.x as y, count(distinct b) from t1 a left outer join t2 on a.id = t2.id group by y having count(*) > 1 order by y limit 5 offset 2')).toEqual({
      statement: 'select',
      distinct: true,
      columns: [
        { table: 'a', colname: 'x', alias: 'y' },
        { function: 'count', params: [{ colname: 'b' }], distinct: true },
      ],
      from: [{ table: 't1', alias: 'a' }, { table: 't2', join: 'left', on: { operator: '=', params: [{ table: 'a', colname: 'id' }, { table: 't2', colname: 'id' }] } }],
      group: [{ colname: 'y' }],
      having: { operator: '>', params: [{ function: 'count', params: [{ colname: '*' }] }, { value: '1', valtype: 'integer' }] },
      order: [{ direction: 'asc', expr: { colname: 'y' } }],
      limit: { value: '5', valtype: 'integer' },
      offset: { value: '2', valtype: 'integer' },
    });
  });

  it.each([
    'select * from t',
    "select a, b + 2 * c as d from s.t where x in (1, 2.5, 'q') and y not like 'a%' or z is null",
    'select -1, not a = b from t where (a + b) * c >= -2.5e3',
    'select x from t where a between 1 and 2 and b <> 3 order by x desc, y asc',
  ])('round-trips %s', (sql) => {
    const model = parseSqlModel(sql);
    expect(parseSqlModel(formatSqlModel(model))).toEqual(model);
  });

  it.each([
    ['select', 'expected an expression at the end'],
    ["select 'x from t", 'an unterminated string starts at character 8'],
    ['select a from t where', 'expected an expression at the end'],
    ['update t set a = 1', "expected SELECT at character 1, found 'update'"],
    ['select a b c from t', "expected the end of the statement at character 12, found 'c'"],
  ])('refuses %s', (sql, message) => {
    expect(() => parseSqlModel(sql)).toThrow(new SqlModelError(message));
  });
});
