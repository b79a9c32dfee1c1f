import { literal } from '../check/context.js';
import type { Expr, ScalarType } from '../plan/types.js';
import { toText } from '../sql/convert.js';
import { sqlInteger } from '../sql/quote.js';
import { reuse } from '../sql/reuse.js';
import { formatDatetimeSql } from '../sql/time.js';
import { constantNumber, expectType, nameFor, single } from './helpers.js';
import type { AggregateSqlCall, AggregationDef } from './types.js';

/**
 * Aggregations that analyse rather than summarise: `spotlight` contrasts a cohort with the
 * rest, `phrases` finds the commonest word sequences. The reference shows their results in the
 * console without fixing a wire shape, so the shapes are decided here (apl.md, docs/apl.md).
 */

/** Fields spotlight compares as distributions; the rest it compares value by value. */
const DISTRIBUTED: readonly ScalarType[] = ['long', 'real', 'timespan', 'datetime'];
/** Categorical values reported per field, the most different first. */
const VALUES_PER_FIELD = 10;
/** How many times `max_phrases` candidates phrases weighs before dropping the ones a longer phrase covers. */
const PHRASE_CANDIDATES = 10;
/** Phrases are runs of one to this many words. */
const PHRASE_WORDS = 4;

/** A statistic of a distributed field as its result shows it: datetimes and timespans as text. */
function shown(sql: string, type: ScalarType): string {
  if (type === 'datetime') return formatDatetimeSql(`CAST(${sql} AS BIGINT)`);
  if (type === 'timespan') return toText(`CAST(${sql} AS BIGINT)`, 'timespan');
  return sql;
}

/**
 * One field's findings as a JSON[] list. A categorical field gives each value's share of the
 * selected rows and of the baseline, scored by their difference; a distributed field gives
 * both cohorts' quartiles, scored by the difference of the medians relative to the larger.
 */
function findings(c: AggregateSqlCall, index: number, name: string, selected: string, baseline: string): string {
  const type = c.type(index);
  const value = c.arg(index);
  const counts = `{'ns': count(*)${c.filter([selected])}, 'nb': count(*)${c.filter([baseline])}`;
  if (DISTRIBUTED.includes(type)) {
    const stats = (cohort: string): string => {
      const quartiles = `quantile_cont(${value}, [0.25, 0.5, 0.75])${c.filter([cohort])}`;
      return `{'count': count(${value})${c.filter([cohort])}, 'min': min(${value})${c.filter([cohort])}, 'q': ${quartiles}, 'max': max(${value})${c.filter([cohort])}, 'avg': avg(${value})${c.filter([cohort])}}`;
    };
    return reuse(`${counts}, 's': ${stats(selected)}, 'b': ${stats(baseline)}}`, 'sd', (v) => {
      const side = (s: string): string =>
        `{'count': ${s}.count, 'min': ${shown(`${s}.min`, type)}, 'p25': ${shown(`${s}.q[1]`, type)}, 'p50': ${shown(`${s}.q[2]`, type)}, 'p75': ${shown(`${s}.q[3]`, type)}, 'max': ${shown(`${s}.max`, type)}, 'avg': ${shown(`${s}.avg`, type)}}`;
      const score = `coalesce(abs(${v}.s.q[2] - ${v}.b.q[2]) / nullif(greatest(abs(${v}.s.q[2]), abs(${v}.b.q[2])), 0), 0)`;
      return `[to_json({'field': ${name}, 'kind': 'distribution', 'selected': ${side(`${v}.s`)}, 'baseline': ${side(`${v}.b`)}, 'score': ${score}})]`;
    });
  }
  const key = toText(value, type);
  return reuse(`${counts}, 's': histogram(${key})${c.filter([selected])}, 'b': histogram(${key})${c.filter([baseline])}}`, 'sc', (v) => {
    const keys = `list_distinct(list_concat(coalesce(map_keys(${v}.s), []), coalesce(map_keys(${v}.b), [])))`;
    const count = (map: string): string => `coalesce(CAST(map_extract_value(${map}, k) AS BIGINT), 0)`;
    const ratio = (n: string, total: string): string => `CASE WHEN ${total} = 0 THEN 0 ELSE ${n} / ${total} END`;
    const entry =
      `{'field': ${name}, 'kind': 'values', 'value': k, 'selected_count': ${count(`${v}.s`)}, 'selected_ratio': ${ratio(count(`${v}.s`), `${v}.ns`)}, ` +
      `'baseline_count': ${count(`${v}.b`)}, 'baseline_ratio': ${ratio(count(`${v}.b`), `${v}.nb`)}, 'score': abs(${ratio(count(`${v}.s`), `${v}.ns`)} - ${ratio(count(`${v}.b`), `${v}.nb`)})}`;
    const entries = `list_transform(${keys}, k -> ${entry})`;
    // Most different first, ties by value; at most VALUES_PER_FIELD per field.
    const sorted = `list_transform(list_sort(list_transform(${entries}, e -> {'o': -e.score, 'v': e.value, 'e': e})), x -> x.e)`;
    return `list_transform(list_slice(${sorted}, 1, ${VALUES_PER_FIELD}), e -> to_json(e))`;
  });
}

/** Every finding of every field, the highest score first. */
function spotlightSql(c: AggregateSqlCall): string {
  const fields = (c.call.args.length - 1) / 2;
  const predicate = c.arg(0);
  const selected = `coalesce(${predicate}, false)`;
  const baseline = `NOT coalesce(${predicate}, false)`;
  const lists = Array.from({ length: fields }, (_, i) => findings(c, i + 1, c.arg(1 + fields + i), selected, baseline));
  const all = `flatten([${lists.join(', ')}])`;
  const ordered = `list_transform(list_sort(list_transform(${all}, e -> {'o': -CAST(json_extract(e, '$.score') AS DOUBLE), 'e': e})), x -> x.e)`;
  return `CAST(to_json(${ordered}) AS VARCHAR)`;
}

/**
 * The distinct runs of one to PHRASE_WORDS words (runs of letters and digits) of a text, within
 * its segments (text between sentence punctuation), each with a letter in it.
 */
function phrasesOf(text: string): string {
  const segments = `regexp_split_to_array(lower(${text}), '[.,;:!?|"()\\[\\]{}<>\\n\\r\\t]+')`;
  const words = `regexp_extract_all(s, '[\\pL\\pN]+(?:''[\\pL\\pN]+)*')`;
  const runs = `flatten(list_transform(range(1, ${PHRASE_WORDS + 1}), n -> list_transform(range(greatest(len(w) - n + 1, 0)), i -> array_to_string(list_slice(w, i + 1, i + n), ' '))))`;
  return `list_filter(list_distinct(flatten(list_transform(${segments}, s -> list_transform([${words}], w -> ${runs})[1]))), p -> regexp_matches(p, '\\pL'))`;
}

/** Counts of rows holding each phrase, the most frequent first, without phrases a longer one of the same count covers. */
function phrasesSql(c: AggregateSqlCall): string {
  const rows = `flatten(list(${phrasesOf(c.arg(0))})${c.filter([`${c.arg(0)} IS NOT NULL`])})`;
  const limit = c.param(0);
  return reuse(`list_aggregate(${rows}, 'histogram')`, 'ph', (histogram) => {
    const ranked = `list_sort(list_transform(map_entries(${histogram}), e -> {'c': -CAST(e.value AS BIGINT), 'w': -len(string_split(e.key, ' ')), 'p': e.key}))`;
    return reuse(`list_slice(${ranked}, 1, ${sqlInteger(limit * PHRASE_CANDIDATES)})`, 'pc', (candidates) => {
      const covered = `list_bool_or(list_transform(${candidates}, o -> o.c = e.c AND o.w < e.w AND contains(' ' || o.p || ' ', ' ' || e.p || ' ')))`;
      const kept = `list_slice(list_filter(${candidates}, e -> NOT coalesce(${covered}, false)), 1, ${sqlInteger(limit)})`;
      return `coalesce(CAST(to_json(list_transform(${kept}, e -> {'phrase': e.p, 'count': -e.c})) AS VARCHAR), '[]')`;
    });
  });
}

/** spotlight and phrases. */
export const ANALYSIS_AGGREGATIONS: readonly AggregationDef[] = [
  {
    name: 'spotlight',
    syntax: 'spotlight(predicate, field[, field…]) or spotlight(predicate, *)',
    summary:
      'Compares the rows where `predicate` is true with the rest: for each field, its values’ shares of both cohorts (strings, bools, dynamic values) or both cohorts’ quartiles (numbers, timespans, datetimes), scored by their difference, the highest first.',
    min: 2,
    max: 64,
    wire: 'spotlight',
    bind: (args, site) => {
      const predicate = expectType(args, 0, ['bool'], site);
      const fields = args.slice(1);
      const names: Expr[] = fields.map((arg, i) => literal('string', arg.name ?? arg.field ?? `arg${i + 2}`));
      return single({ name: 'spotlight' }, site, fields, { args: [predicate, ...fields.map((arg) => arg.expr), ...names], params: [], type: 'dynamic' }, 'spotlight_', { reportedType: 'array' });
    },
    sql: spotlightSql,
    examples: [
      {
        query: "['sample-http-logs'] | summarize s = spotlight(status startswith '5', method) | project top = s[0]",
        rows: [{ top: { field: 'method', kind: 'values', value: 'PUT', selected_count: 1, selected_ratio: 1, baseline_count: 0, baseline_ratio: 0, score: 1 } }],
      },
      {
        query: "['sample-http-logs'] | summarize s = spotlight(is_tls, req_duration_ms) | project d = s[0].selected.p50, b = s[0].baseline.p50",
        rows: [{ d: 48.875, b: 1.125 }],
      },
    ],
  },
  {
    name: 'phrases',
    syntax: 'phrases(column, max_phrases)',
    summary:
      'The most common phrases (runs of one to four words with a letter, lowercased, within text between sentence punctuation) of a text column with the number of rows holding each, as `[{phrase, count}]`, the most frequent first; a phrase is left out where a longer one holding it has the same count.',
    min: 1,
    max: 2,
    wire: 'phrases',
    bind: (args, site) => {
      const value = expectType(args, 0, ['string'], site);
      const limit = args.length > 1 ? Math.floor(constantNumber(args, 1, site, 'number of phrases', 1, 1000)) : 10;
      return single({ name: 'phrases' }, site, args.slice(0, 1), { args: [value], params: [limit], type: 'dynamic' }, nameFor('phrases', args[0]), { reportedType: 'array', aggArgs: [limit] });
    },
    sql: phrasesSql,
    examples: [
      {
        query: "['sample-http-logs'] | summarize phrases(user_agent, 3)",
        rows: [{ phrases_user_agent: [{ phrase: 'mozilla 5', count: 3 }, { phrase: 'linux x86 64', count: 1 }, { phrase: 'python requests 2', count: 1 }] }],
      },
      { query: "['sample-http-logs'] | where message != '' | summarize common = phrases(message, 2)", rows: [{ common: [{ phrase: 'user login ok', count: 1 }, { phrase: 'not found', count: 1 }] }] },
      { query: "['sample-http-logs'] | summarize phrases(uri, 2)", rows: [{ phrases_uri: [{ phrase: 'api', count: 4 }, { phrase: 'users', count: 3 }] }] },
    ],
  },
];

