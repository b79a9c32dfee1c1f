import { InputError } from '../../common/errors.js';
import { randomId } from '../../common/random-id.js';
import { formatTime } from '../../common/time.js';
import type { ServiceDatabase } from '../database.js';
import type { MonitorDefinition, MonitorOperator, MonitorType } from './validation.js';

export interface Monitor extends MonitorDefinition {
  id: string;
  createdMs: number;
  createdBy: string;
  updatedMs: number;
  /** 1 on creation, one more on each update. */
  revision: number;
}

/** A monitor as the API shows it: `@axiomhq/js` 2.0.0's `monitors.Monitor`, unset members omitted. */
export interface WireMonitor {
  id: string;
  createdAt: string;
  createdBy: string;
  name: string;
  type: MonitorType;
  description?: string;
  aplQuery: string;
  operator?: MonitorOperator;
  threshold?: number;
  alertOnNoData: boolean;
  notifyByGroup: boolean;
  resolvable: boolean;
  notifierIds: string[];
  intervalMinutes: number;
  rangeMinutes: number;
  disabled: boolean;
  disabledUntil?: string;
}

export interface MonitorStore {
  /** Throws InputError when a notifier id is unknown. */
  create(definition: MonitorDefinition, createdBy: string, nowMs: number): Monitor;
  get(id: string): Monitor | undefined;
  list(): Monitor[];
  /** Replaces the monitor's definition; undefined when no monitor has this id. */
  update(id: string, definition: MonitorDefinition, nowMs: number): Monitor | undefined;
  /** Its episodes, schedule and match memory go with it (foreign keys cascade). */
  delete(id: string): boolean;
}

interface MonitorRow {
  id: string;
  name: string;
  type: string;
  description: string | null;
  apl_query: string;
  operator: string | null;
  threshold: number | null;
  interval_minutes: number;
  range_minutes: number;
  notify_by_group: number;
  alert_on_no_data: number;
  resolvable: number;
  disabled: number;
  disabled_until_ms: number | null;
  created_ms: number;
  created_by: string;
  updated_ms: number;
  revision: number;
}

const COLUMNS =
  'id, name, type, description, apl_query, operator, threshold, interval_minutes, range_minutes, notify_by_group, ' +
  'alert_on_no_data, resolvable, disabled, disabled_until_ms, created_ms, created_by, updated_ms, revision';

export function createMonitorStore(db: ServiceDatabase): MonitorStore {
  const insert = db.prepare(`INSERT INTO monitors (${COLUMNS}) VALUES (${COLUMNS.split(', ').map((column) => `@${column}`).join(', ')})`);
  const replace = db.prepare(
    `UPDATE monitors SET ${COLUMNS.split(', ')
      .filter((column) => !['id', 'created_ms', 'created_by'].includes(column))
      .map((column) => `${column} = @${column}`)
      .join(', ')} WHERE id = @id`,
  );
  const selectOne = db.prepare<[string], MonitorRow>(`SELECT ${COLUMNS} FROM monitors WHERE id = ?`);
  const selectAll = db.prepare<[], MonitorRow>(`SELECT ${COLUMNS} FROM monitors ORDER BY created_ms, id`);
  const remove = db.prepare('DELETE FROM monitors WHERE id = ?');
  const notifierExists = db.prepare<[string], { id: string }>('SELECT id FROM notifiers WHERE id = ?');
  const selectNotifierIds = db.prepare<[string], { notifier_id: string }>('SELECT notifier_id FROM monitor_notifiers WHERE monitor_id = ? ORDER BY position');
  const clearNotifiers = db.prepare('DELETE FROM monitor_notifiers WHERE monitor_id = ?');
  const insertNotifier = db.prepare('INSERT INTO monitor_notifiers (monitor_id, position, notifier_id) VALUES (?, ?, ?)');

  function writeNotifiers(monitorId: string, notifierIds: readonly string[]): void {
    clearNotifiers.run(monitorId);
    notifierIds.forEach((notifierId, position) => {
      if (!notifierExists.get(notifierId)) {
        throw new InputError(`Unknown notifier ${JSON.stringify(notifierId)} in notifierIds. Expected the id of a notifier created with POST /v2/notifiers.`);
      }
      insertNotifier.run(monitorId, position, notifierId);
    });
  }

  function read(row: MonitorRow): Monitor {
    return fromRow(
      row,
      selectNotifierIds.all(row.id).map((entry) => entry.notifier_id),
    );
  }

  const create = db.transaction((definition: MonitorDefinition, createdBy: string, nowMs: number): Monitor => {
    const row = toRow(randomId('mon_', 20), definition, { created_ms: nowMs, created_by: createdBy, updated_ms: nowMs, revision: 1 });
    insert.run(row);
    writeNotifiers(row.id, definition.notifierIds);
    return fromRow(row, definition.notifierIds);
  });

  const update = db.transaction((id: string, definition: MonitorDefinition, nowMs: number): Monitor | undefined => {
    const current = selectOne.get(id);
    if (!current) return undefined;
    const row = toRow(id, definition, {
      created_ms: current.created_ms,
      created_by: current.created_by,
      updated_ms: nowMs,
      revision: current.revision + 1,
    });
    replace.run(row);
    writeNotifiers(id, definition.notifierIds);
    return fromRow(row, definition.notifierIds);
  });

  return {
    create,
    get: (id) => {
      const row = selectOne.get(id);
      return row ? read(row) : undefined;
    },
    list: () => selectAll.all().map(read),
    update,
    delete: (id) => remove.run(id).changes > 0,
  };
}

export function toWireMonitor(monitor: Monitor): WireMonitor {
  const wire: WireMonitor = {
    id: monitor.id,
    createdAt: formatTime(monitor.createdMs),
    createdBy: monitor.createdBy,
    name: monitor.name,
    type: monitor.type,
    aplQuery: monitor.aplQuery,
    alertOnNoData: monitor.alertOnNoData,
    notifyByGroup: monitor.notifyByGroup,
    resolvable: monitor.resolvable,
    notifierIds: monitor.notifierIds,
    intervalMinutes: monitor.intervalMinutes,
    rangeMinutes: monitor.rangeMinutes,
    disabled: monitor.disabled,
  };
  if (monitor.description !== undefined) wire.description = monitor.description;
  if (monitor.operator !== undefined) wire.operator = monitor.operator;
  if (monitor.threshold !== undefined) wire.threshold = monitor.threshold;
  if (monitor.disabledUntilMs !== undefined) wire.disabledUntil = formatTime(monitor.disabledUntilMs);
  return wire;
}

type Bookkeeping = Pick<MonitorRow, 'created_ms' | 'created_by' | 'updated_ms' | 'revision'>;

function toRow(id: string, definition: MonitorDefinition, bookkeeping: Bookkeeping): MonitorRow {
  return {
    id,
    name: definition.name,
    type: definition.type,
    description: definition.description ?? null,
    apl_query: definition.aplQuery,
    operator: definition.operator ?? null,
    threshold: definition.threshold ?? null,
    interval_minutes: definition.intervalMinutes,
    range_minutes: definition.rangeMinutes,
    notify_by_group: definition.notifyByGroup ? 1 : 0,
    alert_on_no_data: definition.alertOnNoData ? 1 : 0,
    resolvable: definition.resolvable ? 1 : 0,
    disabled: definition.disabled ? 1 : 0,
    disabled_until_ms: definition.disabledUntilMs ?? null,
    ...bookkeeping,
  };
}

function fromRow(row: MonitorRow, notifierIds: string[]): Monitor {
  return {
    id: row.id,
    name: row.name,
    type: row.type as MonitorType,
    description: row.description ?? undefined,
    aplQuery: row.apl_query,
    operator: (row.operator ?? undefined) as MonitorOperator | undefined,
    threshold: row.threshold ?? undefined,
    intervalMinutes: row.interval_minutes,
    rangeMinutes: row.range_minutes,
    notifierIds,
    notifyByGroup: row.notify_by_group === 1,
    alertOnNoData: row.alert_on_no_data === 1,
    resolvable: row.resolvable === 1,
    disabled: row.disabled === 1,
    disabledUntilMs: row.disabled_until_ms ?? undefined,
    createdMs: row.created_ms,
    createdBy: row.created_by,
    updatedMs: row.updated_ms,
    revision: row.revision,
  };
}
