import { describe, expect, it } from 'vitest';
import type * as Ast from '../../../src/engine/apl/ast.js';
import { AplError, codeFrame } from '../../../src/engine/apl/errors.js';
import { tokenize } from '../../../src/engine/apl/lexer.js';
import { formatDatetime, formatTimespan, parseDatetime, parseTimespan } from '../../../src/engine/apl/literals.js';
import { parse } from '../../../src/engine/apl/parser.js';

function errorOf(text: string, options?: Parameters<typeof parse>[1]): AplError {
  try {
    parse(text, options);
  } catch (error) {
    if (error instanceof AplError) return error;
    throw error;
  }
  throw new Error(`Expected ${JSON.stringify(text)} to fail.`);
}

/** The AST without locations, bigints as text: what a query means, for comparisons. */
function shape(node: unknown): unknown {
  return JSON.parse(JSON.stringify(node, (key, value: unknown) => (key === 'loc' || key === 'operatorLoc' ? undefined : typeof value === 'bigint' ? `${value}n` : value)));
}

function whereOf(text: string): Ast.Expression {
  const operator = parse(`T | where ${text}`).operators[0];
  if (operator?.kind !== 'Where') throw new Error('not a where');
  return operator.predicate;
}

describe('lexer', () => {
  it('gives every token its line and code-point column', () => {
    const tokens = tokenize("['ds'] // comment\n| where éx == 'é'");
    expect(tokens.map((token) => [token.kind, token.value, token.line, token.column])).toEqual([
      ['[', '[', 1, 1],
      ['String', 'ds', 1, 2],
      [']', ']', 1, 6],
      ['|', '|', 2, 1],
      ['Name', 'where', 2, 3],
      ['Name', 'éx', 2, 9],
      ['==', '==', 2, 12],
      ['String', 'é', 2, 15],
      ['<end of query>', '', 2, 18],
    ]);
    expect(() => tokenize('| where 😀x')).toThrow(/line 1, column 9: unexpected character '😀'/);
  });

  it('reads operators with !, ~ and hyphens as single names', () => {
    const names = tokenize('!contains in~ !in~ !in project-away project-rename project -x').filter((token) => token.kind === 'Name').map((token) => token.value);
    expect(names).toEqual(['!contains', 'in~', '!in~', '!in', 'project-away', 'project-rename', 'project', 'x']);
  });

  it('reads numbers, reals and timespans with their units exactly', () => {
    const tokens = tokenize('42 0.57 1e3 100ms 1.5h 10min 2d 1sec 3tick');
    expect(tokens.slice(0, -1).map((token) => [token.kind, token.value])).toEqual([
      ['Int', '42'],
      ['Real', '0.57'],
      ['Real', '1e3'],
      ['Timespan', '100000000'],
      ['Timespan', '5400000000000'],
      ['Timespan', '600000000000'],
      ['Timespan', '172800000000000'],
      ['Timespan', '1000000000'],
      ['Timespan', '300'],
    ]);
    expect(() => tokenize('9223372036854775808')).toThrow(/does not fit in 64 bits/);
    expect(() => tokenize('5parsecs')).toThrow(/unknown timespan unit 'parsecs'/);
  });

  it('decodes string escapes and raw strings', () => {
    const values = tokenize(String.raw`"a\"b\n" 'it\'s' @"C:\dir" @'x''y' "\u00e9\u{1F600}"`).filter((token) => token.kind === 'String').map((token) => token.value);
    expect(values).toEqual(['a"b\n', "it's", 'C:\\dir', "x'y", 'é😀']);
    expect(() => tokenize(String.raw`"\d"`)).toThrow(/unknown escape \\d/);
    expect(() => tokenize('"open')).toThrow(/line 1, column 1: unterminated string/);
  });

  it('stops past the token limit', () => {
    expect(() => tokenize('a '.repeat(20), { maxTokens: 10 })).toThrow(/more than 10 tokens/);
  });
});

describe('literals', () => {
  it('parses datetimes to nanoseconds and prints them back trimmed', () => {
    expect(parseDatetime('2024-01-15T14:00:00Z')).toBe(1_705_327_200_000_000_000n);
    expect(parseDatetime('2024-01-15')).toBe(1_705_276_800_000_000_000n);
    expect(parseDatetime('2024-01-15T16:00:00.000000001+02:00')).toBe(1_705_327_200_000_000_001n);
    expect(parseDatetime('2024-02-30')).toBeUndefined();
    expect(formatDatetime(1_705_327_200_120_000_000n)).toBe('2024-01-15T14:00:00.12Z');
    expect(formatDatetime(-500_000_000n)).toBe('1969-12-31T23:59:59.5Z');
  });

  it('parses timespans in both notations and prints them as [d.]hh:mm:ss', () => {
    expect(parseTimespan('1.02:03:04.5')).toBe(93_784_500_000_000n);
    expect(parseTimespan('-00:30')).toBe(-1_800_000_000_000n);
    expect(parseTimespan('15s')).toBe(15_000_000_000n);
    expect(formatTimespan(93_784_500_000_000n)).toBe('1.02:03:04.5');
    expect(formatTimespan(-1_000_000_000n)).toBe('-00:00:01');
  });
});

describe('parser', () => {
  it('parses a query into lets, a source and operators, every node with a position', () => {
    const query = parse("let n = 5;\n['http-logs']\n| where status == 200\n| take n");
    expect(query.lets[0]?.name.name).toBe('n');
    expect(query.source).toMatchObject({ name: 'http-logs', loc: { line: 2, column: 1 } });
    expect(query.operators.map((op) => [op.kind, op.loc.line, op.loc.column])).toEqual([
      ['Where', 3, 3],
      ['Take', 4, 3],
    ]);
    const predicate = (query.operators[0] as Ast.WhereOperator).predicate as Ast.Binary;
    expect(predicate.right.loc).toMatchObject({ line: 3, column: 19 });
    expect(predicate.operatorLoc).toMatchObject({ line: 3, column: 16 });
  });

  it('parses the three kinds of let, set, and the sources written in the query', () => {
    const query = parse("set stricttypes;\nlet n = 5;\nlet T = logs | take 1;\nlet f = (a:long, b:string = 'x') { let c = a; c * 2 };\nT");
    expect(query.sets.map((statement) => statement.name.name)).toEqual(['stricttypes']);
    expect(query.lets.map((statement) => [statement.name.name, statement.value.kind])).toEqual([
      ['n', 'Int'],
      ['T', 'Tabular'],
      ['f', 'Function'],
    ]);
    expect(shape(query.lets[2])).toMatchObject({ value: { params: [{ name: { name: 'a' }, type: { name: 'long' } }, { name: { name: 'b' }, defaultValue: { value: 'x' } }], lets: [{ name: { name: 'c' } }] } });
    expect(parse('print a = 1, 2').source).toMatchObject({ kind: 'Print', assignments: [{ name: { name: 'a' } }, { name: undefined }] });
    expect(parse("datatable(a:long, b:string) [1, 'x',]").source).toMatchObject({ kind: 'Datatable', columns: [{ name: { name: 'a' } }, { name: { name: 'b' } }], values: [{ value: 1n }, { value: 'x' }] });
    // A dataset named like a source keyword stays a dataset.
    expect(parse('print | take 1').source).toMatchObject({ kind: 'Source', name: 'print' });
  });

  it('parses union, join, lookup, make-series and mv-expand with their options', () => {
    const query = parse(
      "T | union withsource=src github*, (U | take 1), ['x']\n| join kind=leftanti V on key, $left.a == $right.['b.c']\n| lookup kind=inner W on k" +
        '\n| make-series n = count() default = 0 on _time from ago(1h) to now() step 1m by m\n| mv-expand kind=bag with_itemindex=i x to typeof(long), y limit 5',
    );
    expect(query.operators.map((op) => op.kind)).toEqual(['Union', 'Join', 'Lookup', 'MakeSeries', 'MvExpand']);
    expect(shape(query.operators[0])).toMatchObject({ withSource: { name: 'src' }, tables: [{ kind: 'DatasetPattern', pattern: 'github*' }, { kind: 'Tabular' }, { kind: 'Source', name: 'x' }] });
    expect(shape(query.operators[1])).toMatchObject({ joinKind: 'leftanti', right: { name: 'V' }, on: [{ left: { name: 'key' } }, { left: { kind: 'Member' }, right: { kind: 'Index' } }] });
    expect(shape(query.operators[2])).toMatchObject({ joinKind: 'inner' });
    expect(shape(query.operators[3])).toMatchObject({ aggregates: [{ name: { name: 'n' } }], defaultValue: { value: '0n' }, on: { name: '_time' }, by: [{ value: { name: 'm' } }] });
    expect(shape(query.operators[4])).toMatchObject({ bagKind: 'bag', itemIndex: { name: 'i' }, items: [{ toType: { name: 'long' } }, { value: { name: 'y' } }], limit: { value: '5n' } });
  });

  it('says where a join condition or an option is wrong', () => {
    expect(errorOf('T | join U on a > b').message).toBe('line 1, column 15: a join condition is a column name or an equality such as $left.id == $right.trace_id; separate conditions with commas');
    expect(errorOf('T | lookup kind=rightouter U on a').message).toBe("line 1, column 17: unknown lookup kind 'rightouter'; expected leftouter or inner");
    expect(errorOf('T | mv-expand kind=list a').message).toBe("line 1, column 20: unknown kind 'list'; expected bag or array");
    expect(errorOf('T | make-series count() on _time').message).toBe("line 1, column 33: expected 'step', found the end of the query");
  });

  it('binds and tighter than or, comparisons tighter than and, * tighter than +', () => {
    expect(shape(whereOf('a or b and c == 1 + 2 * 3'))).toEqual({
      kind: 'Binary',
      operator: 'or',
      left: { kind: 'Name', name: 'a', bracketed: false },
      right: {
        kind: 'Binary',
        operator: 'and',
        left: { kind: 'Name', name: 'b', bracketed: false },
        right: {
          kind: 'Binary',
          operator: '==',
          left: { kind: 'Name', name: 'c', bracketed: false },
          right: {
            kind: 'Binary',
            operator: '+',
            left: { kind: 'Int', value: '1n' },
            right: { kind: 'Binary', operator: '*', left: { kind: 'Int', value: '2n' }, right: { kind: 'Int', value: '3n' } },
          },
        },
      },
    });
  });

  it('parses in, between, matches regex, <> and the string operators', () => {
    expect(shape(whereOf('x !in~ ("a", "b")'))).toMatchObject({ kind: 'In', negated: true, caseInsensitive: true, items: [{ value: 'a' }, { value: 'b' }] });
    expect(shape(whereOf('x between (1 .. 10)'))).toMatchObject({ kind: 'Between', negated: false, low: { value: '1n' }, high: { value: '10n' } });
    expect(shape(whereOf('x matches regex "a+"'))).toMatchObject({ kind: 'Binary', operator: 'matches regex' });
    expect(shape(whereOf('x <> 1'))).toMatchObject({ kind: 'Binary', operator: '!=' });
    expect(shape(whereOf('x !has_cs "t"'))).toMatchObject({ kind: 'Binary', operator: '!has_cs' });
  });

  it('parses literals: datetime, timespan, typed nulls, dynamic', () => {
    expect(shape(whereOf('t > datetime(2024-01-15)'))).toMatchObject({ right: { kind: 'Datetime', value: '1705276800000000000n' } });
    expect(shape(whereOf('t > datetime("2024-01-15T14:00:00Z")'))).toMatchObject({ right: { kind: 'Datetime', value: '1705327200000000000n' } });
    expect(shape(whereOf('d < timespan(15s)'))).toMatchObject({ right: { kind: 'Timespan', value: '15000000000n' } });
    expect(shape(whereOf('x == int(null)'))).toMatchObject({ right: { kind: 'TypedNull', type: 'int' } });
    // The data types page's other names: date for datetime, time for timespan.
    expect(shape(whereOf('t > date(2024-01-15)'))).toMatchObject({ right: { kind: 'Datetime', value: '1705276800000000000n' } });
    expect(shape(whereOf('d < time(1.5h)'))).toMatchObject({ right: { kind: 'Timespan', value: '5400000000000n' } });
    expect(shape(whereOf('t == date(null)'))).toMatchObject({ right: { kind: 'TypedNull', type: 'datetime' } });
    expect(shape(whereOf('t > datetime(10:30)'))).toMatchObject({ right: { kind: 'Datetime', value: '37800000000000n', timeOfDay: true } });
    expect(shape(whereOf('x in (dynamic(["a", 1, -2.5, null, {"k": [true]}]))'))).toMatchObject({
      items: [{ kind: 'Dynamic', value: ['a', 1, -2.5, null, { k: [true] }] }],
    });
    // Values computed from fields, as the reference writes them: bags and arrays of expressions.
    expect(shape(whereOf("x == dynamic({'path': uri, 'n': [1, n + 1], 'none': null, 'empty': {}})"))).toMatchObject({
      right: {
        kind: 'Call',
        name: { name: 'bag_pack' },
        args: [
          { kind: 'String', value: 'path' },
          { kind: 'Name', name: 'uri' },
          { kind: 'String', value: 'n' },
          { kind: 'Call', name: { name: 'pack_array' }, args: [{ kind: 'Int' }, { kind: 'Binary', operator: '+' }] },
          { kind: 'String', value: 'none' },
          { kind: 'TypedNull', type: 'dynamic' },
          { kind: 'String', value: 'empty' },
          { kind: 'Dynamic', value: {} },
        ],
      },
    });
    // A value that starts as JSON and goes on as an expression (the series_cosine_similarity page's
    // `dynamic([0.5*pi(), …])`) is read as an expression too.
    expect(shape(whereOf('x == dynamic([0.5 * pi(), 2])'))).toMatchObject({
      right: { kind: 'Call', name: { name: 'pack_array' }, args: [{ kind: 'Binary', operator: '*' }, { kind: 'Int' }] },
    });
    expect(shape(whereOf('x == dynamic({"a": 1 + n})'))).toMatchObject({ right: { kind: 'Call', name: { name: 'bag_pack' } } });
    // Where neither reading works, the JSON reading says what it expected.
    expect(errorOf("T | where x == dynamic({'a': })").message).toMatch(/expected a JSON value, found '}'/);
    expect(errorOf('T | where x == dynamic([1 2])').message).toMatch(/expected '\]', found the number 2/);
  });

  it('parses dotted names, bracketed names and member access', () => {
    expect(shape(whereOf("geo.city == ['geo.country']"))).toEqual({
      kind: 'Binary',
      operator: '==',
      left: { kind: 'Member', object: { kind: 'Name', name: 'geo', bracketed: false }, name: 'city' },
      right: { kind: 'Name', name: 'geo.country', bracketed: true },
    });
  });

  it('parses summarize with names and by, sort with directions, top, distinct, project-* and search', () => {
    const query = parse(
      'T | summarize n = count(), avg(x) by bin(_time, 1m), k | sort by n asc nulls last, k | top 3 by n | distinct k | project-away a*, b | project-rename c = d | search kind=case_sensitive "x"',
    );
    expect(query.operators.map((op) => op.kind)).toEqual(['Summarize', 'Sort', 'Top', 'Distinct', 'ProjectAway', 'ProjectRename', 'Search']);
    expect(shape(query.operators[1])).toMatchObject({ keys: [{ direction: 'asc', nulls: 'last' }, { value: { name: 'k' } }] });
    expect(shape(query.operators[4])).toMatchObject({ patterns: [{ pattern: 'a*', wildcard: true }, { pattern: 'b', wildcard: false }] });
    expect(shape(query.operators[6])).toMatchObject({ predicate: { kind: 'SearchTerm', term: { value: 'x' } }, caseSensitive: true });
  });

  it('says what was expected and where', () => {
    expect(errorOf('T | where x ==').message).toBe('line 1, column 15: expected an expression, found the end of the query');
    expect(errorOf('T | summarise count()').message).toBe("line 1, column 5: unknown tabular operator 'summarise'; did you mean 'summarize'?");
    expect(errorOf('T\n| where x == 1 y').message).toBe("line 2, column 16: expected '|' or the end of the query, found 'y'");
    expect(errorOf('T | where x == null').message).toMatch(/line 1, column 16: a bare null has no type/);
    expect(errorOf('T | sort x').message).toBe("line 1, column 10: expected 'by', found 'x'");
    expect(errorOf('T | where datetime(2024-13-01) > x').message).toMatch(/line 1, column 11: invalid datetime '2024-13-01'/);
    // Datetimes are int64 nanoseconds: the reference's year 9999 is past what they hold.
    expect(errorOf('T | where x in (dynamic([datetime(10:30)]))').message).toMatch(/a datetime without a date, '10:30', is today's only outside dynamic/);
    expect(errorOf('T | where x < datetime(9999-12-31)').message).toMatch(/line 1, column 15: datetime '9999-12-31' is out of range; datetimes run from 1677-09-21/);
    expect(errorOf('').message).toMatch(/line 1, column 1: expected a dataset name/);
  });

  it('bounds nesting depth and the number of tokens', () => {
    expect(errorOf(`T | where ${'('.repeat(500)}x${')'.repeat(500)}`).message).toMatch(/nests deeper than 100 levels/);
    expect(errorOf(`T | where ${'-'.repeat(500)}x`).message).toMatch(/nests deeper than 100 levels/);
    expect(errorOf(`T | where x in (${'1,'.repeat(6000)}1)`).message).toMatch(/more than 10000 tokens/);
  });

  it('draws a caret under the error position', () => {
    const text = "['logs']\n| where statsu == 200";
    const error = errorOf(`${text} x`);
    expect(codeFrame(`${text} x`, error.position)).toBe(`2 | | where statsu == 200 x\n  | ${' '.repeat(22)}^`);
    expect(error.replyMembers).toEqual({ detail: { errorType: 1, compileErrorCode: 1, line: 2, column: 23, message: "expected '|' or the end of the query, found 'x'" } });
  });
});
