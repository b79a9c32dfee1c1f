import type * as Ast from '../apl/ast.js';
import { NS_PER } from '../apl/literals.js';
import { PlanBuilder, REPORTED_TYPES, nodesOf, singleScanOf } from '../plan/build.js';
import { closestName } from '../apl/suggest.js';
import type { AggregateItem, Computed, Expr, OrderKey, PlanColumn, PlanNode } from '../plan/types.js';
import type { ResultMessage } from '../results/rows.js';
import type { DatasetSchema } from '../schema.js';
import { bindAggregation } from '../aggregations/bind.js';
import { isAggregateName } from '../aggregations/index.js';
import type { AggregateOutput, BoundArg } from '../aggregations/types.js';
import { asString, call, constantValue, fail, literal, type AggregateSink, type BindContext, type Scope } from './context.js';
import { bindExpression, findColumn, unknownField } from './expressions.js';
import { bindParse, bindParseKv, type Extracted } from './parse.js';
import { bindRedact } from './redact.js';
import { anyColumn, termTest } from './search.js';
import { KNOWN_SET_OPTIONS, WHERE_ALWAYS_TRUE, Warnings, alwaysTrue, unknownSetOption } from './warnings.js';
import { withVirtualFields } from './virtual-fields.js';
import { passThroughOf, refOf, reportedTypeOf, uniqueName, visible } from './columns.js';
import { join, lookup, union, type TableChecker } from './tables.js';
import { datatableValues, getschema, printValues } from './sources.js';
import { makeSeries } from './make-series.js';
import { mvExpand } from './mv-expand.js';

export interface CheckOptions {
  /** The query window in nanoseconds: start ≤ _time < end. */
  readonly start: bigint;
  readonly end: bigint;
  readonly now: bigint;
  /** Rows a query without summarize or limit returns at most. */
  readonly defaultLimit: number;
  /** The datasets a pattern such as `union github*` may match; without it, patterns match none. */
  readonly datasetNames?: () => readonly string[];
}

/** How the plan's output becomes result tables. */
export interface ResultShape {
  readonly kind: 'raw' | 'summary';
  /** A summarize by a time bin that ends the query: table "0" is a time series, "_totals" its totals. */
  readonly timeSeries?: { readonly column: number; readonly size: bigint; readonly totalsFlag: number };
  /**
   * The scan's `_time` and row id columns, when the result rows still carry both: legacy matches
   * report the event's `_rowId` (row-id.ts) from them.
   */
  readonly identity?: { readonly time: number; readonly rowId: number };
}

export interface CheckedQuery {
  /** The first dataset the query reads ('' when it reads none, as `print` does). */
  readonly dataset: string;
  /** Every dataset the query reads, in the order it names them. */
  readonly schemas: readonly DatasetSchema[];
  readonly plan: PlanNode;
  readonly shape: ResultShape;
  /** Warnings for `status.messages` (check/warnings.ts). */
  readonly messages: readonly ResultMessage[];
}

/** A dataset's schema by name, or undefined when there is no such dataset (it may throw its own error instead). */
export type SchemaLookup = (dataset: string) => DatasetSchema | undefined;

/**
 * The semantic check: binds every name, function and type of the query against the fields of
 * the datasets it reads and builds the logical plan. Everything that can be wrong with a query is
 * found here, before any row is read. `schemas` is one dataset's schema, or a lookup by name.
 */
export function checkQuery(query: Ast.Query, schemas: DatasetSchema | SchemaLookup, options: CheckOptions): CheckedQuery {
  const lookup: SchemaLookup = typeof schemas === 'function' ? schemas : (name) => (name === schemas.dataset ? schemas : undefined);
  return new QueryChecker(lookup, options).check(query);
}

class QueryChecker implements TableChecker {
  readonly builder = new PlanBuilder();
  readonly lets = new Map<string, Expr>();
  private readonly tabularLets = new Map<string, Ast.TabularExpression>();
  private readonly functions = new Map<string, Ast.FunctionDefinition>();
  private readonly read = new Map<string, DatasetSchema>();
  /** Tabular lets being expanded: a let that names itself is refused instead of recursing. */
  private readonly expanding = new Set<string>();
  private readonly warnings = new Warnings();
  context: BindContext;
  private timeColumn = 0;
  private timeSeries: ResultShape['timeSeries'];

  constructor(
    private readonly lookup: SchemaLookup,
    readonly options: CheckOptions,
  ) {
    this.context = { builder: this.builder, now: options.now, range: { start: options.start, end: options.end }, functions: this.functions, warnings: this.warnings };
  }

  check(query: Ast.Query): CheckedQuery {
    for (const statement of query.sets) this.set(statement);
    for (const statement of query.lets) this.let(statement);
    let node = this.tabular(query, true);
    const nodes = [...nodesOf(node)];
    const summary = nodes.some((n) => n.kind === 'aggregate' || n.kind === 'series');
    if (!summary && !nodes.some((n) => n.kind === 'limit')) node = this.builder.limit(node, this.options.defaultLimit, true);
    const scan = singleScanOf(node);
    const carried = (id: number): boolean => node.columns.some((column) => column.id === id);
    const shape: ResultShape = {
      kind: summary ? 'summary' : 'raw',
      ...(this.timeSeries ? { timeSeries: this.timeSeries } : {}),
      ...(scan && carried(scan.rowId) && carried(scan.time.column) ? { identity: { time: scan.time.column, rowId: scan.rowId } } : {}),
    };
    const schemas = [...this.read.values()];
    return { dataset: schemas[0]?.dataset ?? '', schemas, plan: node, shape, messages: this.warnings.list() };
  }

  /** A `set` statement: stricttypes is known; any other option is ignored with a warning, as the hosted service does. */
  private set(statement: Ast.SetStatement): void {
    const name = statement.name.name;
    if (!(KNOWN_SET_OPTIONS as readonly string[]).includes(name)) {
      this.warnings.add(unknownSetOption(name));
      return;
    }
    const value = statement.value ? constantValue(bindExpression(statement.value, { columns: [], lets: this.lets }, this.context)) : true;
    if (typeof value !== 'boolean') fail('invalid_argument', `set ${name} takes true or false, or no value (true)`, statement.value ?? statement);
    this.context = { ...this.context, strictTypes: value };
  }

  private let(statement: Ast.LetStatement): void {
    const name = statement.name.name;
    this.lets.delete(name);
    this.tabularLets.delete(name);
    this.functions.delete(name);
    const value = statement.value;
    if (value.kind === 'Function') {
      this.functions.set(name, value);
    } else if (value.kind === 'Tabular') {
      this.tabularLets.set(name, value);
    } else if (value.kind === 'Name' && !value.bracketed && !this.lets.has(value.name) && (this.tabularLets.has(value.name) || this.lookup(value.name))) {
      // `let T = logs;`: another name for a table.
      this.tabularLets.set(name, { kind: 'Tabular', source: { kind: 'Source', name: value.name, loc: value.loc }, operators: [], loc: value.loc });
    } else {
      this.lets.set(name, bindExpression(value, { columns: [], lets: this.lets }, this.context));
    }
  }

  /** A source and its operators; `top` for the query's own (its last operator ends the query). */
  tabular(expression: { readonly source: Ast.TabularSource; readonly operators: readonly Ast.Operator[] }, top = false): PlanNode {
    let node = this.source(expression.source);
    expression.operators.forEach((operator, index) => {
      node = this.apply(node, operator, top && index === expression.operators.length - 1);
    });
    return node;
  }

  private source(source: Ast.TabularSource): PlanNode {
    switch (source.kind) {
      case 'Source':
        return this.named(source.name, source);
      case 'Print':
        return printValues(this, source);
      case 'Datatable':
        return datatableValues(this, source);
      case 'UnionSource':
        return union(this, undefined, source.union);
      case 'ExternalData':
        return fail(
          'not_available_locally',
          'externaldata is not available on the local service: it reads files from URLs, which only the hosted service does; ingest the data into a dataset, or write it with datatable',
          source,
        );
    }
  }

  /** A tabular let, else a dataset, by name. */
  named(name: string, node: { readonly loc: Ast.Loc }): PlanNode {
    const tabular = this.tabularLets.get(name);
    if (tabular) {
      if (this.expanding.has(name)) fail('invalid_argument', `the let '${name}' refers to itself`, node);
      this.expanding.add(name);
      try {
        return this.tabular(tabular);
      } finally {
        this.expanding.delete(name);
      }
    }
    const schema = this.lookup(name);
    if (!schema) {
      const suggestion = closestName(name, [...this.tabularLets.keys()]);
      fail('unknown_dataset', `unknown dataset or tabular let '${name}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`, node);
    }
    if (!this.read.has(schema.dataset)) this.read.set(schema.dataset, schema);
    const scan = this.builder.datasetScan(schema, this.options);
    this.timeColumn = scan.time.column;
    return withVirtualFields(scan, schema, this.context);
  }

  /** The datasets a pattern may match. */
  datasetNames(): readonly string[] {
    return this.options.datasetNames?.() ?? [];
  }

  summarizeFor(input: PlanNode, operator: Ast.SummarizeOperator): PlanNode {
    return this.summarize(input, operator, false);
  }

  scope(node: PlanNode): Scope {
    return { columns: node.columns, lets: this.lets };
  }

  bind(expression: Ast.Expression, node: PlanNode): Expr {
    return bindExpression(expression, this.scope(node), this.context);
  }

  private apply(node: PlanNode, operator: Ast.Operator, last: boolean): PlanNode {
    switch (operator.kind) {
      case 'Where': {
        const predicate = this.bind(operator.predicate, node);
        if (predicate.type !== 'bool') fail('type_mismatch', `where needs a bool predicate, got ${predicate.type}`, operator.predicate);
        if (alwaysTrue(predicate)) this.warnings.add(WHERE_ALWAYS_TRUE);
        return this.builder.filter(node, predicate);
      }
      case 'Extend':
        return this.extend(node, operator.assignments);
      case 'Project':
        return this.project(node, operator.assignments);
      case 'ProjectAway': {
        const away = new Set(this.matchPatterns(node, operator.patterns).map((column) => column.id));
        return this.passThrough(node, visible(node).filter((column) => !away.has(column.id)), operator);
      }
      case 'ProjectKeep': {
        const keep = new Set(this.matchPatterns(node, operator.patterns).map((column) => column.id));
        return this.passThrough(node, visible(node).filter((column) => keep.has(column.id)), operator);
      }
      case 'ProjectReorder':
        return this.passThrough(node, this.reorder(node, operator.keys), operator);
      case 'ProjectRename':
        return this.rename(node, operator);
      case 'Summarize':
        return this.summarize(node, operator, last);
      case 'Sort':
        return this.sort(node, operator.keys);
      case 'Take':
        return this.builder.limit(node, this.count(operator.count));
      case 'Top':
        return this.builder.limit(this.sort(node, [operator.key]), this.count(operator.count));
      case 'Count': {
        const column = this.builder.column({ name: 'count', type: 'long', agg: { name: 'count', fields: [], args: [] } });
        return this.builder.aggregate({ input: node, keys: [], aggregates: [{ column, call: { fn: 'count', args: [], params: [], type: 'long' } }] });
      }
      case 'Distinct':
        return this.distinct(node, operator);
      case 'Search':
        return this.search(node, operator);
      case 'Getschema':
        return getschema(this, node);
      case 'Union':
        return union(this, node, operator);
      case 'Join':
        return join(this, node, operator);
      case 'Lookup':
        return lookup(this, node, operator);
      case 'MakeSeries':
        return makeSeries(this, node, operator);
      case 'MvExpand':
        return mvExpand(this, node, operator);
      case 'Parse': {
        const { columns, matched } = bindParse(operator, this.bind(operator.source, node));
        return this.addColumns(operator.where ? this.builder.filter(node, matched) : node, columns);
      }
      case 'ParseKv':
        return this.addColumns(node, bindParseKv(operator, this.bind(operator.source, node)));
      case 'ExtendValid':
        return this.extendValid(node, operator.assignments);
      case 'Sample':
        return this.builder.filter(node, call('lt', [call('rand', [], 'real'), literal('real', this.proportion(operator))], 'bool'));
      case 'Redact':
        return this.redact(node, operator);
    }
  }

  // ── Column-shaping operators ──────────────────────────────────────────────────────────────

  /** Binds assignments in order; a later one may use an earlier one's name. */
  private bindAssignments(node: PlanNode, assignments: readonly Ast.Assignment[], keepExisting: boolean): Computed[] {
    const pending = new Map<number, Expr>();
    const columns: PlanColumn[] = keepExisting ? [...node.columns] : [...node.columns];
    const out: Computed[] = [];
    let unnamed = 0;
    for (const assignment of assignments) {
      const bound = substitute(bindExpression(assignment.value, { columns, lets: this.lets }, this.context), pending);
      const source = bound.kind === 'column' ? columns.find((column) => column.id === bound.column) : undefined;
      const name = assignment.name?.name ?? derivedName(assignment.value, bound, source) ?? nextColumnName(() => ++unnamed, columns, out);
      const column = this.builder.column({
        name,
        type: bound.type,
        ...(source ? { reportedType: source.reportedType } : { reportedType: reportedTypeOf(bound) }),
      });
      pending.set(column.id, bound);
      columns.push(column);
      const previous = out.findIndex((item) => item.column.name === name);
      if (previous !== -1) {
        if (!keepExisting) fail('invalid_argument', `column '${name}' is projected twice; rename one with name = …`, assignment);
        out.splice(previous, 1);
      }
      out.push({ column, expr: bound });
    }
    return out;
  }

  private extend(node: PlanNode, assignments: readonly Ast.Assignment[]): PlanNode {
    const added = this.bindAssignments(node, assignments, true);
    const replaced = new Set(added.map((item) => item.column.name));
    const kept = node.columns.filter((column) => column.hidden || !replaced.has(column.name)).map(passThroughOf);
    return this.builder.project(node, [...kept, ...added]);
  }

  /** Columns computed from the input (parse, parse-kv), added as extend adds them: a column of the same name is replaced. */
  private addColumns(node: PlanNode, extracted: readonly Extracted[]): PlanNode {
    const names = new Set<string>();
    const added = extracted.map(({ name, value }) => {
      if (names.has(name.name)) fail('invalid_argument', `column '${name.name}' is extracted twice`, name);
      names.add(name.name);
      return { column: this.builder.column({ name: name.name, type: value.type }), expr: value };
    });
    const kept = node.columns.filter((column) => column.hidden || !names.has(column.name)).map(passThroughOf);
    return this.builder.project(node, [...kept, ...added]);
  }

  /**
   * extend-valid: each new value where it is valid — every field it reads is present and the
   * value itself is not null — and elsewhere the field's value before (null for a new field).
   */
  private extendValid(node: PlanNode, assignments: readonly Ast.Assignment[]): PlanNode {
    const added = this.bindAssignments(node, assignments, true).map((item, index) => {
      const before = findColumn(this.scope(node), item.column.name);
      // A name assigned twice is kept once, so the item is found by its name first.
      const assignment = assignments.find((candidate) => candidate.name?.name === item.column.name) ?? (assignments[index] as Ast.Assignment);
      if (before && before.type !== item.expr.type) {
        fail('type_mismatch', `extend-valid keeps '${before.name}' (${before.type}) where the new value is not valid, so the new value must be a ${before.type} too, got ${item.expr.type}`, assignment);
      }
      const read = columnsReadBy(item.expr);
      const valid = node.columns
        .filter((column) => read.has(column.id))
        .map((column) => call('isnotnull', [refOf(column)], 'bool'))
        .reduce((all, test) => call('and', [all, test], 'bool'), call('isnotnull', [item.expr], 'bool'));
      const fallback = before ? refOf(before) : literal(item.expr.type, null);
      return { column: item.column, expr: call('iff', [valid, item.expr, fallback], item.expr.type) };
    });
    const replaced = new Set(added.map((item) => item.column.name));
    const kept = node.columns.filter((column) => column.hidden || !replaced.has(column.name)).map(passThroughOf);
    return this.builder.project(node, [...kept, ...added]);
  }

  /** redact: the fields named after `on` (every string field without), rewritten in place. */
  private redact(node: PlanNode, operator: Ast.RedactOperator): PlanNode {
    const rewrite = bindRedact(operator, (expression) => constantValue(bindExpression(expression, { columns: [], lets: this.lets }, this.context)));
    const targets = operator.fields.length > 0 ? this.matchPatterns(node, operator.fields) : visible(node).filter((column) => column.type === 'string');
    for (const column of targets) {
      if (column.type !== 'string') fail('type_mismatch', `redact rewrites string fields, and '${column.name}' is a ${column.type}`, operator.fields.find((field) => field.pattern === column.name) ?? operator);
    }
    const ids = new Set(targets.map((column) => column.id));
    const computed = node.columns.map((column) => {
      if (!ids.has(column.id)) return passThroughOf(column);
      const copy = this.builder.column({ name: column.name, type: 'string', reportedType: column.reportedType });
      return { column: copy, expr: rewrite(refOf(column)) };
    });
    return this.builder.project(node, computed);
  }

  /** `sample`'s proportion: a constant strictly between 0 and 1 (the reference's range). */
  private proportion(operator: Ast.SampleOperator): number {
    const constant = constantValue(bindExpression(operator.proportion, { columns: [], lets: this.lets }, this.context));
    const proportion = typeof constant === 'number' ? constant : typeof constant === 'bigint' ? Number(constant) : undefined;
    if (proportion === undefined || !(proportion > 0 && proportion < 1)) {
      fail('invalid_argument', 'sample takes the proportion of rows to keep, a constant greater than 0 and less than 1, such as sample 0.05', operator.proportion);
    }
    return proportion;
  }

  private project(node: PlanNode, assignments: readonly Ast.Assignment[]): PlanNode {
    const items = this.bindAssignments(node, assignments, false).map((item) => {
      // `project status` keeps the column itself rather than a copy.
      if (item.expr.kind === 'column') {
        const source = node.columns.find((column) => column.id === (item.expr as { column: number }).column);
        if (source && source.name === item.column.name) return passThroughOf(source);
      }
      return item;
    });
    const hidden = node.columns.filter((column) => column.hidden).map(passThroughOf);
    return this.builder.project(node, [...items, ...hidden]);
  }

  private passThrough(node: PlanNode, columns: readonly PlanColumn[], operator: Ast.Operator): PlanNode {
    // A result needs a column: clients read a table's row count from its first one.
    if (columns.length === 0) fail('invalid_argument', 'this leaves no columns; keep at least one', operator);
    const hidden = node.columns.filter((column) => column.hidden);
    return this.builder.project(node, [...columns, ...hidden].map(passThroughOf));
  }

  private rename(node: PlanNode, operator: Ast.ProjectRenameOperator): PlanNode {
    const renamed = new Map<number, string>();
    for (const rename of operator.renames) {
      const column = findColumn(this.scope(node), rename.oldName.name);
      if (!column) unknownField(rename.oldName.name, this.scope(node), rename.oldName);
      renamed.set(column.id, rename.newName.name);
    }
    const names = new Set<string>();
    const computed = node.columns.map((column) => {
      const name = renamed.get(column.id);
      if (column.hidden) return passThroughOf(column);
      const finalName = name ?? column.name;
      if (names.has(finalName)) fail('invalid_argument', `project-rename makes two columns named '${finalName}'`, operator);
      names.add(finalName);
      if (name === undefined) return passThroughOf(column);
      const copy = this.builder.column({ name, type: column.type, reportedType: column.reportedType, ...(column.agg ? { agg: column.agg } : {}) });
      return { column: copy, expr: refOf(column) };
    });
    return this.builder.project(node, computed);
  }

  /** Columns matching the patterns, in pattern order, each once. A plain name must exist. */
  private matchPatterns(node: PlanNode, patterns: readonly Ast.NamePattern[]): PlanColumn[] {
    const result: PlanColumn[] = [];
    const seen = new Set<number>();
    for (const pattern of patterns) {
      if (!pattern.wildcard) {
        const column = findColumn(this.scope(node), pattern.pattern);
        if (!column) unknownField(pattern.pattern, this.scope(node), pattern);
        if (!seen.has(column.id)) result.push(column);
        seen.add(column.id);
        continue;
      }
      const regex = wildcardRegex(pattern.parts);
      for (const column of visible(node)) {
        if (regex.test(column.name) && !seen.has(column.id)) {
          seen.add(column.id);
          result.push(column);
        }
      }
    }
    return result;
  }

  /**
   * project-reorder: each column goes to the key that names it, else to the first wildcard key
   * that matches it, else to a bare `*` (so `trace_id, *, span_id` ends with span_id); the keys'
   * columns follow one another in key order, each key's in their input order or sorted by name
   * (`asc`, `desc`, and the granny forms, which compare runs of digits as numbers); columns no
   * key takes follow in their input order.
   */
  private reorder(node: PlanNode, keys: readonly Ast.ReorderKey[]): PlanColumn[] {
    const columns = visible(node);
    const claimed = new Map<number, number>();
    keys.forEach((key, index) => {
      if (key.pattern.wildcard) return;
      const column = findColumn(this.scope(node), key.pattern.pattern) ?? unknownField(key.pattern.pattern, this.scope(node), key.pattern);
      if (!claimed.has(column.id)) claimed.set(column.id, index);
    });
    const everything = (key: Ast.ReorderKey): boolean => key.pattern.parts.every((part) => part === '');
    for (const pass of [false, true]) {
      keys.forEach((key, index) => {
        if (!key.pattern.wildcard || everything(key) !== pass) return;
        const regex = wildcardRegex(key.pattern.parts);
        for (const column of columns) if (!claimed.has(column.id) && regex.test(column.name)) claimed.set(column.id, index);
      });
    }
    const ordered = keys.flatMap((key, index) => sortColumnNames(columns.filter((column) => claimed.get(column.id) === index), key.order));
    return [...ordered, ...columns.filter((column) => !claimed.has(column.id))];
  }

  // ── Ordering and limits ──────────────────────────────────────────────────────────────────

  private sort(node: PlanNode, keys: readonly Ast.SortKey[]): PlanNode {
    const extra: Computed[] = [];
    const order: OrderKey[] = keys.map((key) => {
      const expr = this.bind(key.value, node);
      if (expr.type === 'dynamic') fail('type_mismatch', 'cannot sort by a dynamic value; convert it with tostring() or toreal()', key.value);
      const desc = key.direction !== 'asc';
      const nullsFirst = key.nulls === undefined ? !desc : key.nulls === 'first';
      if (expr.kind === 'column') return { column: expr.column, desc, nullsFirst };
      const column = this.builder.column({ name: `sort_key_${extra.length + 1}`, type: expr.type, hidden: true });
      extra.push({ column, expr });
      return { column: column.id, desc, nullsFirst };
    });
    const input = extra.length === 0 ? node : this.builder.project(node, [...node.columns.map(passThroughOf), ...extra]);
    return this.builder.sort(input, order);
  }

  private count(expression: Ast.Expression): number {
    const value = constantValue(bindExpression(expression, { columns: [], lets: this.lets }, this.context));
    if (typeof value !== 'bigint' || value < 0n) fail('invalid_argument', 'the number of rows must be a constant integer of at least 0', expression);
    return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
  }

  // ── Summaries ────────────────────────────────────────────────────────────────────────────

  private distinct(node: PlanNode, operator: Ast.DistinctOperator): PlanNode {
    const columns =
      operator.columns.length === 0
        ? visible(node)
        : operator.columns.map((identifier) => findColumn(this.scope(node), identifier.name) ?? unknownField(identifier.name, this.scope(node), identifier));
    const keys = columns.map((column) => ({
      input: column.id,
      column: this.builder.column({ name: column.name, type: column.type, reportedType: column.reportedType }),
    }));
    const aggregate = this.builder.aggregate({ input: node, keys, aggregates: [] });
    return aggregate;
  }

  private summarize(input: PlanNode, operator: Ast.SummarizeOperator, last: boolean): PlanNode {
    const inputScope = this.scope(input);
    // Group keys: plain columns are grouped on directly, expressions are computed first.
    const keyExprs = operator.by.map((assignment) => ({ assignment, expr: this.bind(assignment.value, input) }));
    const computedKeys: Computed[] = [];
    const keys: { input: number; column: PlanColumn; time: boolean; size?: bigint }[] = [];
    const taken: PlanColumn[] = [];
    let unnamed = 0;
    for (const { assignment, expr } of keyExprs) {
      if (expr.type === 'dynamic') fail('type_mismatch', 'cannot group by a dynamic value; convert it with tostring()', assignment.value);
      const source = expr.kind === 'column' ? input.columns.find((column) => column.id === expr.column) : undefined;
      const name = assignment.name?.name ?? derivedName(assignment.value, expr, source) ?? nextColumnName(() => ++unnamed, taken, []);
      const size = this.timeBinSize(expr);
      let inputId: number;
      if (expr.kind === 'column') {
        inputId = expr.column;
      } else {
        const computed = this.builder.column({ name, type: expr.type, hidden: true });
        computedKeys.push({ column: computed, expr });
        inputId = computed.id;
      }
      const column = this.builder.column({ name: uniqueName(name, taken), type: expr.type, reportedType: source?.reportedType ?? reportedTypeOf(expr) });
      taken.push(column);
      keys.push({ input: inputId, column, time: size !== undefined, ...(size !== undefined ? { size } : {}) });
    }
    const timeKey = keys.find((key) => key.time);
    // The time bin leads the output columns (apl.md: `[_time, keys…, aggs…]`).
    const orderedKeys = timeKey ? [timeKey, ...keys.filter((key) => key !== timeKey)] : keys;
    const source = computedKeys.length === 0 ? input : this.builder.project(input, [...input.columns.map(passThroughOf), ...computedKeys]);

    const items: AggregateItem[] = [];
    const post: { column: PlanColumn; expr: Expr }[] = [];
    let needsPost = false;
    const flag = timeKey && last ? this.builder.column({ name: '_totals', type: 'bool', hidden: true }) : undefined;
    const window = this.options.end - this.options.start;
    const keyScope: Scope = { columns: orderedKeys.map((key) => key.column), lets: this.lets };

    for (const assignment of operator.aggregates) {
      const outputs: { output: AggregateOutput; column: PlanColumn; perSecond: boolean }[] = [];
      const sink: AggregateSink = {
        inputScope,
        add: (callNode, context) => {
          const binding = this.bindAggregate(callNode, inputScope, context, keys.map((key) => key.input));
          const columns = binding.outputs.map((output) => {
            const column = this.builder.column({
              name: output.defaultName,
              type: output.call.type,
              reportedType: output.reportedType ?? REPORTED_TYPES[output.call.type],
              hidden: true,
              agg: output.agg,
            });
            outputs.push({ output, column, perSecond: binding.perSecond === true });
            items.push({ column, call: output.call });
            return column;
          });
          return refOf(columns[0] as PlanColumn);
        },
      };
      const direct = assignment.value.kind === 'Call' && isAggregateName(assignment.value.name.name);
      const bound = bindExpression(assignment.value, keyScope, { ...this.context, aggregates: sink });
      if (outputs.length === 0) fail('invalid_argument', 'summarize needs aggregations such as count() or avg(x); put other expressions in extend', assignment.value);
      if (direct && outputs.length > 1 && assignment.name) {
        fail('invalid_argument', `${(assignment.value as Ast.Call).name.name}() returns several columns and cannot be given one name; rename them with project-rename`, assignment.name);
      }
      if (direct) {
        for (const { output, column, perSecond } of outputs) {
          const name = uniqueName(outputs.length === 1 && assignment.name ? assignment.name.name : output.defaultName, taken);
          const visibleColumn = { ...column, name, hidden: false };
          taken.push(visibleColumn);
          if (perSecond) {
            needsPost = true;
            const seconds = (span: bigint): Expr => literal('real', Number(span) / Number(NS_PER.second));
            const duration = flag && timeKey?.size ? call('iff', [refOf(flag), seconds(window), seconds(timeKey.size)], 'real') : seconds(timeKey?.size ?? window);
            const rate = this.builder.column({ name, type: 'real', agg: output.agg });
            post.push({ column: rate, expr: call('div', [call('todouble', [refOf(column)], 'real'), duration], 'real') });
          } else {
            const index = items.findIndex((item) => item.column.id === column.id);
            items[index] = { column: visibleColumn, call: output.call };
            post.push({ column: visibleColumn, expr: refOf(visibleColumn) });
          }
        }
      } else {
        needsPost = true;
        const name = uniqueName(assignment.name?.name ?? nextColumnName(() => ++unnamed, taken, []), taken);
        const column = this.builder.column({ name, type: bound.type, reportedType: reportedTypeOf(bound), agg: { name: 'computed', fields: [], args: [] } });
        taken.push(column);
        post.push({ column, expr: bound });
      }
    }

    const rowId = singleScanOf(input)?.rowId;
    const inputRowId = rowId !== undefined && source.columns.some((column) => column.id === rowId) ? rowId : undefined;
    let node: PlanNode = this.builder.aggregate({
      input: source,
      keys: orderedKeys.map(({ input: keyInput, column }) => ({ input: keyInput, column })),
      aggregates: items,
      ...(timeKey && flag ? { totals: { withoutKey: timeKey.input, flag } } : {}),
      ...(inputRowId !== undefined ? { inputRowId } : {}),
    });
    if (needsPost) {
      node = this.builder.project(node, [
        ...orderedKeys.map((key) => passThroughOf(key.column)),
        ...post,
        ...(flag ? [passThroughOf({ ...flag, hidden: true })] : []),
      ]);
    }
    if (timeKey && flag && timeKey.size !== undefined) this.timeSeries = { column: timeKey.column.id, size: timeKey.size, totalsFlag: flag.id };
    else if (last) this.timeSeries = undefined;
    const firstAggregate = post.find((item) => !item.column.hidden)?.column;
    const order: OrderKey[] = [];
    if (timeKey) order.push({ column: timeKey.column.id, desc: false, nullsFirst: true });
    if (firstAggregate) order.push({ column: firstAggregate.id, desc: true, nullsFirst: false });
    for (const key of orderedKeys) if (key !== timeKey) order.push({ column: key.column.id, desc: false, nullsFirst: true });
    return this.builder.sort(node, order);
  }

  private bindAggregate(node: Ast.Call, scope: Scope, context: BindContext, keyInputs: readonly number[]) {
    const name = node.name.name;
    const { aggregates: _sink, ...inner } = context;
    const args: BoundArg[] = [];
    const named = node.argNames?.find((argName) => argName !== undefined);
    if (named && name !== 'arg_max' && name !== 'arg_min') fail('syntax', `named arguments such as ${named.name} = … are only allowed in arg_max() and arg_min()`, named);
    node.args.forEach((arg, index) => {
      const argName = node.argNames?.[index];
      if (argName && arg.kind === 'Star') fail('syntax', `'*' takes no name; write ${argName.name} = <column> for one column`, argName);
      if (arg.kind === 'Star') {
        if ((name !== 'arg_max' && name !== 'arg_min' && name !== 'spotlight') || index === 0) fail('syntax', "'*' is only allowed after the first argument of arg_max(), arg_min() and spotlight()", arg);
        const first = args[0]?.expr;
        for (const column of scope.columns) {
          if (column.hidden || keyInputs.includes(column.id)) continue;
          if (first?.kind === 'column' && first.column === column.id) continue;
          args.push({ expr: refOf(column), field: column.name, reportedType: column.reportedType, node: arg });
        }
        return;
      }
      const expr = bindExpression(arg, scope, inner);
      const column = expr.kind === 'column' ? scope.columns.find((c) => c.id === expr.column) : undefined;
      args.push({ expr, field: column?.name, node: arg, ...(column ? { reportedType: column.reportedType } : {}), ...(argName ? { name: argName.name } : {}) });
    });
    return bindAggregation(name, args, node);
  }

  /** The bin size when `expr` bins the scan's `_time`: `bin(_time, 1m)`, `bin_auto(_time)`. */
  private timeBinSize(expr: Expr): bigint | undefined {
    if (expr.kind !== 'call' || expr.fn !== 'bin') return undefined;
    const [value, size] = expr.args;
    if (value?.kind !== 'column' || value.column !== this.timeColumn || size?.kind !== 'literal' || typeof size.value !== 'bigint') return undefined;
    return size.value;
  }

  private search(node: PlanNode, operator: Ast.SearchOperator): PlanNode {
    return this.builder.filter(node, this.searchPredicate(operator.predicate, node, operator.caseSensitive));
  }

  /** A search predicate as the `where` it means (the search page's table of equivalents). */
  private searchPredicate(predicate: Ast.SearchPredicate, node: PlanNode, caseSensitive: boolean): Expr {
    switch (predicate.kind) {
      case 'SearchAll':
        return literal('bool', true);
      case 'SearchTerm': {
        const test = termTest(predicate.term.value, caseSensitive);
        if (!predicate.field) return anyColumn(node.columns, test);
        const column = findColumn(this.scope(node), predicate.field.name) ?? unknownField(predicate.field.name, this.scope(node), predicate.field);
        return test(asString(refOf(column)));
      }
      case 'SearchLogical':
        return call(predicate.operator, [this.searchPredicate(predicate.left, node, caseSensitive), this.searchPredicate(predicate.right, node, caseSensitive)], 'bool');
      case 'SearchNot':
        return call('not', [this.searchPredicate(predicate.operand, node, caseSensitive)], 'bool');
      case 'SearchExpression': {
        const bound = this.bind(predicate.expression, node);
        if (bound.type !== 'bool') fail('type_mismatch', `a search predicate must be a term such as "error" or a bool expression, got ${bound.type}`, predicate);
        return bound;
      }
    }
  }
}

/** The columns an expression reads. */
function columnsReadBy(expr: Expr, into: Set<number> = new Set()): Set<number> {
  if (expr.kind === 'column') into.add(expr.column);
  else if (expr.kind === 'call') for (const arg of expr.args) columnsReadBy(arg, into);
  return into;
}

/** Replaces references to columns defined earlier in the same operator by their expressions. */
function substitute(expr: Expr, pending: ReadonlyMap<number, Expr>): Expr {
  if (pending.size === 0) return expr;
  if (expr.kind === 'column') return pending.get(expr.column) ?? expr;
  if (expr.kind === 'literal') return expr;
  return { ...expr, args: expr.args.map((arg) => substitute(arg, pending)) };
}

/**
 * The name of an unnamed column: a field keeps its name, `bin(f, …)`, `bin_auto(f)` and
 * `floor(f, …)` take f's; anything else gets `Column1`, `Column2`… (Kusto's rule).
 */
function derivedName(node: Ast.Expression, bound: Expr, source: PlanColumn | undefined): string | undefined {
  if (source) return source.name;
  if (node.kind === 'Name') return node.name;
  if (node.kind === 'Call' && ['bin', 'bin_auto', 'floor'].includes(node.name.name) && bound.kind === 'call' && bound.fn === 'bin') {
    const first = node.args[0];
    if (first?.kind === 'Name') return first.name;
  }
  return undefined;
}

function nextColumnName(next: () => number, columns: readonly PlanColumn[], out: readonly Computed[]): string {
  for (;;) {
    const name = `Column${next()}`;
    if (!columns.some((column) => !column.hidden && column.name === name) && !out.some((item) => item.column.name === name)) return name;
  }
}

function wildcardRegex(parts: readonly string[]): RegExp {
  const escaped = parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`, 's');
}

function sortColumnNames(columns: PlanColumn[], order: Ast.ReorderKey['order']): PlanColumn[] {
  if (order === undefined) return columns;
  const compare = order.startsWith('granny') ? grannyCompare : (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const sign = order.endsWith('desc') ? -1 : 1;
  return [...columns].sort((a, b) => sign * compare(a.name, b.name));
}

/** Names compared run by run, a run of digits by its number: `b9` before `b50`. */
function grannyCompare(a: string, b: string): number {
  const runs = (name: string): string[] => name.match(/\d+|\D+/g) ?? [];
  const left = runs(a);
  const right = runs(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i] as string;
    const y = right[i] as string;
    if (x === y) continue;
    if (/^\d/.test(x) && /^\d/.test(y)) {
      const difference = BigInt(x) - BigInt(y);
      if (difference !== 0n) return difference < 0n ? -1 : 1;
    }
    return x < y ? -1 : 1;
  }
  return left.length - right.length;
}
