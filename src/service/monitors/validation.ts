import { InputError } from '../../common/errors.js';
import { previewJson } from '../../common/json-preview.js';
import {
  optionalBoolean,
  optionalNumber,
  optionalString,
  optionalStringArray,
  optionalTime,
  readFields,
  requiredInteger,
  requiredString,
  type Fields,
} from '../json-fields.js';

export const MONITOR_TYPES = ['Threshold', 'MatchEvent'] as const;
export type MonitorType = (typeof MONITOR_TYPES)[number];

export const MONITOR_OPERATORS = ['Below', 'BelowOrEqual', 'Above', 'AboveOrEqual', 'AboveOrBelow'] as const;
export type MonitorOperator = (typeof MONITOR_OPERATORS)[number];

export const MONITOR_LIMITS = {
  name: 256,
  description: 1024,
  aplQuery: 16_384,
  notifiers: 50,
  notifierId: 64,
  /** A week: longer intervals are better served by a scheduled job than a monitor. */
  intervalMinutes: 10_080,
  /** 30 days of events per evaluation. */
  rangeMinutes: 43_200,
} as const;

/** A monitor as a create or update request describes it (PUT replaces the whole monitor, as the hosted API does). */
export interface MonitorDefinition {
  name: string;
  type: MonitorType;
  description: string | undefined;
  aplQuery: string;
  /** Required for Threshold monitors; kept as given for MatchEvent monitors, which ignore it. */
  operator: MonitorOperator | undefined;
  threshold: number | undefined;
  intervalMinutes: number;
  rangeMinutes: number;
  notifierIds: string[];
  notifyByGroup: boolean;
  alertOnNoData: boolean;
  resolvable: boolean;
  disabled: boolean;
  disabledUntilMs: number | undefined;
}

/** The members of the client's `monitors.Monitor` that a request may set. */
const MONITOR_FIELDS = [
  'name',
  'type',
  'description',
  'aplQuery',
  'mplQuery',
  'operator',
  'threshold',
  'alertOnNoData',
  'notifyByGroup',
  'resolvable',
  'notifierIds',
  'intervalMinutes',
  'rangeMinutes',
  'disabled',
  'disabledUntil',
];
/** Read-only members, which clients send back with the monitor they fetched. */
const READ_ONLY_FIELDS = ['id', 'createdAt', 'createdBy', 'updatedAt'];

export function parseMonitorDefinition(body: unknown): MonitorDefinition {
  // `notifierIDs` (deprecated) and `notifierIds` differ only in case, so readFields treats them as one member.
  const fields = readFields(body, 'the request body', MONITOR_FIELDS, READ_ONLY_FIELDS);
  if (fields.has('mplQuery')) {
    throw new InputError('mplQuery (a metrics query) is not supported by the local service. Expected aplQuery, an APL query over events.');
  }
  const type = readType(fields);
  const operator = readOperator(fields);
  const threshold = optionalNumber(fields, 'threshold');
  if (type === 'Threshold') {
    if (operator === undefined) {
      throw new InputError(`Missing operator for a Threshold monitor. Expected one of: ${MONITOR_OPERATORS.join(', ')}.`);
    }
    if (threshold === undefined) throw new InputError('Missing threshold for a Threshold monitor. Expected the number to compare the query result with.');
  }
  return {
    name: requiredString(fields, 'name', MONITOR_LIMITS.name, 'Checkout error rate'),
    type,
    description: emptyToUndefined(optionalString(fields, 'description', MONITOR_LIMITS.description)),
    aplQuery: requiredString(fields, 'aplQuery', MONITOR_LIMITS.aplQuery, "['http-logs'] | where status >= 500 | summarize count()"),
    operator,
    threshold,
    intervalMinutes: requiredInteger(fields, 'intervalMinutes', 1, MONITOR_LIMITS.intervalMinutes),
    rangeMinutes: requiredInteger(fields, 'rangeMinutes', 1, MONITOR_LIMITS.rangeMinutes),
    notifierIds: optionalStringArray(fields, 'notifierIds', MONITOR_LIMITS.notifiers, MONITOR_LIMITS.notifierId) ?? [],
    notifyByGroup: optionalBoolean(fields, 'notifyByGroup') ?? false,
    alertOnNoData: optionalBoolean(fields, 'alertOnNoData') ?? false,
    resolvable: optionalBoolean(fields, 'resolvable') ?? false,
    disabled: optionalBoolean(fields, 'disabled') ?? false,
    disabledUntilMs: optionalTime(fields, 'disabledUntil'),
  };
}

function readType(fields: Fields): MonitorType {
  const value = fields.get('type');
  const expected = `Expected one of: ${MONITOR_TYPES.join(', ')}.`;
  if (value === undefined) throw new InputError(`Missing type. ${expected}`);
  if (value === 'AnomalyDetection') {
    throw new InputError(`Monitor type "AnomalyDetection" is not supported by the local service. ${expected}`);
  }
  if (!(MONITOR_TYPES as readonly unknown[]).includes(value)) throw new InputError(`Invalid type ${previewJson(value)}. ${expected}`);
  return value as MonitorType;
}

function readOperator(fields: Fields): MonitorOperator | undefined {
  const value = fields.get('operator');
  // The Go client sends "" for a monitor without an operator (a match monitor).
  if (value === undefined || value === '') return undefined;
  if (!(MONITOR_OPERATORS as readonly unknown[]).includes(value)) {
    throw new InputError(`Invalid operator ${previewJson(value)}. Expected one of: ${MONITOR_OPERATORS.join(', ')}.`);
  }
  return value as MonitorOperator;
}

function emptyToUndefined(value: string | undefined): string | undefined {
  return value === '' ? undefined : value;
}
