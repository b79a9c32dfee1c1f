import { argNode, constantValue, fail, literal } from '../check/context.js';
import type { Expr } from '../plan/types.js';
import type { JsonValue } from '../results/values.js';
import { dynamic, text } from './bind.js';
import { SqlModelError, formatSqlModel, parseSqlModel } from './sql-model.js';
import type { BindSite, FunctionDef } from './types.js';

/**
 * SQL functions. Parsing SQL needs a parser DuckDB cannot express in SQL, so both functions run
 * in the checker on a constant argument (`sql-model.ts`) and become a constant of the plan; a
 * computed argument is a 400 that says so.
 */

/** Argument 0's constant value, or the 400 that explains why it must be one. */
function constantArgument(args: readonly Expr[], site: BindSite, what: string): string {
  const value = constantValue(args[0] as Expr);
  if (typeof value !== 'string') {
    fail('not_available_locally', `${site.name}() runs in the local service only on a constant ${what}, such as ${site.name === 'parse_sql' ? "parse_sql('SELECT a FROM t')" : "format_sql(parse_sql('SELECT a FROM t'))"}`, argNode(site.node, 0));
  }
  return value;
}

function modelFailure(site: BindSite, error: unknown): never {
  if (!(error instanceof SqlModelError)) throw error;
  return fail('invalid_argument', `${site.name}() cannot read its argument: ${error.message}`, argNode(site.node, 0));
}

/** SQL functions (scalar-functions/sql-functions). */
export const SQL_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'format_sql',
    summary: 'The SQL text of a statement model that parse_sql() gave, keywords in lower case (on a constant model: see the list of differences).',
    params: [dynamic('parsed_sql_model')],
    returns: 'string',
    bind: (args, site) => {
      const model = JSON.parse(constantArgument(args, site, 'model')) as JsonValue;
      try {
        return literal('string', formatSqlModel(model));
      } catch (error) {
        return modelFailure(site, error);
      }
    },
    examples: [
      {
        apl: "format_sql(parse_sql('SELECT id, status, uri FROM requests WHERE req_duration_ms > 1000 ORDER BY req_duration_ms DESC'))",
        result: 'select id, status, uri from requests where req_duration_ms > 1000 order by req_duration_ms desc',
        type: 'string',
      },
      { apl: "format_sql(parse_sql('select count(*) as n, service from spans s join services v on s.sid = v.id where (a = 1 or b = 2) and c is not null group by service limit 10'))", result: 'select count(*) as n, service from spans as s join services as v on s.sid = v.id where (a = 1 or b = 2) and c is not null group by service limit 10' },
      { apl: 'format_sql(parse_sql("SELECT name FROM users WHERE name = \'O\'\'Brien\' AND age NOT BETWEEN 1 AND 2"))', result: "select name from users where name = 'O''Brien' and age not between 1 and 2" },
      { apl: 'format_sql(dynamic({"statement": "delete"}))', error: 'format_sql() cannot read its argument: expected a model of a select statement, as parse_sql() gives' },
    ],
  },
  {
    name: 'parse_sql',
    summary: 'The data model of a SQL SELECT statement (statement, columns, from, where, group, having, order, limit) as a property bag (on a constant text: see the list of differences).',
    params: [text('sql_statement')],
    returns: 'dynamic',
    reported: 'object',
    bind: (args, site) => {
      const sql = constantArgument(args, site, 'SQL text');
      try {
        return literal('dynamic', JSON.stringify(parseSqlModel(sql)));
      } catch (error) {
        return modelFailure(site, error);
      }
    },
    examples: [
      {
        apl: "parse_sql('SELECT id, status, uri FROM requests WHERE req_duration_ms > 1000 ORDER BY req_duration_ms DESC')",
        result: {
          statement: 'select',
          columns: [{ colname: 'id' }, { colname: 'status' }, { colname: 'uri' }],
          from: [{ table: 'requests' }],
          where: { operator: '>', params: [{ colname: 'req_duration_ms' }, { value: '1000', valtype: 'integer' }] },
          order: [{ direction: 'desc', expr: { colname: 'req_duration_ms' } }],
        },
        type: 'object',
      },
      {
        apl: "parse_sql('SELECT id, status FROM logs WHERE status = 401 OR status = 403').where",
        result: {
          operator: 'or',
          params: [
            { operator: '=', params: [{ colname: 'status' }, { value: '401', valtype: 'integer' }] },
            { operator: '=', params: [{ colname: 'status' }, { value: '403', valtype: 'integer' }] },
          ],
        },
      },
      { apl: "parse_sql('SELECT trace_id, span_id, duration FROM traces ORDER BY duration DESC').from[0].table", result: 'traces' },
      { apl: "parse_sql('SELECT FROM')", error: "parse_sql() cannot read its argument: expected an expression at character 8, found 'FROM'" },
      { apl: 'parse_sql(uri)', error: "parse_sql() runs in the local service only on a constant SQL text, such as parse_sql('SELECT a FROM t')" },
    ],
  },
];
