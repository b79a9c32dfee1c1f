import { formatDatetime, formatTimespan } from '../apl/literals.js';
import { inputsOf } from './build.js';
import type { AggregateCall, Expr, OrderKey, PlanColumn, PlanNode } from './types.js';

/**
 * The plan as indented text, root first, one node a line: what tests compare to check what a
 * query means without running it.
 *
 *     limit 10 order=[#3 count_ desc, #2 method asc]
 *       aggregate keys=[#2 method] aggs=[#3 count_ = count()]
 *         filter eq(#7 status, 200)
 *           scan http-logs time=[2024-01-01T00:00:00Z, 2024-01-02T00:00:00Z)
 */
export function explain(root: PlanNode): string {
  const lines: string[] = [];
  const names = new Map<number, string>();
  const collect = (node: PlanNode): void => {
    for (const input of inputsOf(node)) collect(input);
    for (const column of node.columns) if (!names.has(column.id)) names.set(column.id, column.name);
  };
  collect(root);
  const ref = (id: number): string => `#${id} ${names.get(id) ?? '?'}`;
  const expr = (e: Expr): string => formatExpr(e, ref);
  const order = (keys: readonly OrderKey[]): string =>
    `[${keys.map((key) => `${ref(key.column)} ${key.desc ? 'desc' : 'asc'}${key.nullsFirst === key.desc ? ` nulls ${key.nullsFirst ? 'first' : 'last'}` : ''}`).join(', ')}]`;
  const columnList = (columns: readonly PlanColumn[]): string =>
    columns.map((column) => `${column.hidden ? '(' : ''}#${column.id} ${column.name}${column.hidden ? ')' : ''}`).join(', ');

  const visit = (node: PlanNode, depth: number): void => {
    const pad = '  '.repeat(depth);
    switch (node.kind) {
      case 'scan':
        lines.push(
          `${pad}scan ${JSON.stringify(node.dataset)} time=[${formatDatetime(node.time.start)}, ${formatDatetime(node.time.end)}) columns=[${columnList(node.columns)}]`,
        );
        return;
      case 'filter':
        lines.push(`${pad}filter ${expr(node.predicate)}`);
        break;
      case 'project':
        lines.push(
          `${pad}project ${node.computed
            .map((item) => {
              const source = item.expr.kind === 'column' && item.expr.column === item.column.id ? '' : ` = ${expr(item.expr)}`;
              return `${item.column.hidden ? '(' : ''}#${item.column.id} ${item.column.name}${source}${item.column.hidden ? ')' : ''}`;
            })
            .join(', ')}`,
        );
        break;
      case 'aggregate': {
        const keys = node.keys.map((key) => `#${key.column.id} ${key.column.name} = ${ref(key.input)}`).join(', ');
        const aggs = node.aggregates.map((item) => `#${item.column.id} ${item.column.name} = ${formatAggregate(item.call, ref)}`).join(', ');
        const totals = node.totals ? ` totals-without=${ref(node.totals.withoutKey)} flag=#${node.totals.flag.id}` : '';
        lines.push(`${pad}aggregate keys=[${keys}] aggs=[${aggs}]${totals} order=${order(node.order)}`);
        break;
      }
      case 'sort':
        lines.push(`${pad}sort ${order(node.order)}`);
        break;
      case 'limit':
        lines.push(`${pad}limit ${node.count}${node.implicit ? ' (default)' : ''} order=${order(node.order)}`);
        break;
      case 'values':
        lines.push(`${pad}values columns=[${columnList(node.columns)}] rows=[${node.rows.map((row) => `(${row.map(expr).join(', ')})`).join(', ')}]`);
        break;
      case 'union':
        lines.push(`${pad}union columns=[${columnList(node.columns)}] order=${order(node.order)}`);
        break;
      case 'join':
        lines.push(
          `${pad}join ${node.joinKind} on=[${node.on.map((key) => `${ref(key.left)} == ${ref(key.right)}`).join(', ')}] columns=[${node.outputs
            .map((item) => `${item.column.hidden ? '(' : ''}#${item.column.id} ${item.column.name} = ${item.side} ${ref(item.source)}${item.column.hidden ? ')' : ''}`)
            .join(', ')}]`,
        );
        break;
      case 'mvexpand':
        lines.push(
          `${pad}mv-expand ${node.outputs
            .filter((item) => item.expand)
            .map((item) => `#${item.column.id} ${item.column.name} = ${item.expand ?? ''} ${ref(item.source)}`)
            .join(', ')} index=#${node.itemIndex.id}${node.limit !== undefined ? ` limit=${node.limit}` : ''}`,
        );
        break;
      case 'series': {
        const range = node.range ? ` from=${formatDatetime(node.range.from)} to=${formatDatetime(node.range.to)}` : '';
        lines.push(
          `${pad}series keys=[${node.keys.map((key) => `#${key.column.id} ${key.column.name} = ${ref(key.input)}`).join(', ')}] bin=${ref(node.binColumn)} step=${formatTimespan(node.step)}${range} values=[${node.values
            .map((value) => `#${value.column.id} ${value.column.name} = ${ref(value.input)} default ${expr(value.defaultValue)}`)
            .join(', ')}] time=#${node.time.id}`,
        );
        break;
      }
    }
    for (const input of inputsOf(node)) visit(input, depth + 1);
  };
  visit(root, 0);
  return lines.join('\n');
}

export function formatExpr(e: Expr, ref: (id: number) => string): string {
  switch (e.kind) {
    case 'column':
      return ref(e.column);
    case 'literal':
      return formatLiteral(e);
    case 'call': {
      const name = e.caseSensitive === false ? `${e.fn}~` : e.fn;
      return `${name}(${e.args.map((arg) => formatExpr(arg, ref)).join(', ')})`;
    }
  }
}

function formatAggregate(call: AggregateCall, ref: (id: number) => string): string {
  const args = [...call.args.map((arg) => formatExpr(arg, ref)), ...call.params.map(String)];
  const filter = call.filter ? ` if ${formatExpr(call.filter, ref)}` : '';
  return `${call.fn}(${args.join(', ')})${filter}`;
}

function formatLiteral(e: Extract<Expr, { kind: 'literal' }>): string {
  if (e.value === null) return `${e.type}(null)`;
  switch (e.type) {
    case 'datetime':
      return `datetime(${formatDatetime(BigInt(e.value))})`;
    case 'timespan':
      return `timespan(${formatTimespan(BigInt(e.value))})`;
    case 'string':
      return JSON.stringify(e.value);
    case 'dynamic':
      return `dynamic(${String(e.value)})`;
    default:
      return String(e.value);
  }
}
