import type { DashboardDocument } from '../../common/dashboard-contract.js';
import { InputError } from '../../common/errors.js';
import { jsonObject } from '../../common/json-object.js';
import { previewJson } from '../../common/json-preview.js';


export const DASHBOARD_LIMITS = {
  name: 256,
  description: 1024,
  charts: 100,
  chartId: 128,
  uid: 64,
} as const;

/** Dashboard uids: letters, digits, `_` and `-`, so that they sit in a path unescaped. */
export const UID_PATTERN = /^[A-Za-z0-9_-]+$/;

export interface ValidCreate {
  uid: string | undefined;
  document: DashboardDocument;
  overwrite: boolean;
}

export interface ValidUpdate {
  document: DashboardDocument;
  /** Undefined only with `overwrite: true`. */
  expectedVersion: number | undefined;
}

// The hosted service's upsert request: the document under `dashboard`, plus these.
const UPSERT_KEYS = new Set(['dashboard', 'uid', 'version', 'overwrite', 'message']);

export function parseCreate(body: unknown): ValidCreate {
  const fields = jsonObject('The request body', body, UPSERT_KEYS);
  const uid = fields.uid === undefined || fields.uid === null ? undefined : parseUid(fields.uid);
  return { uid, document: parseDocument(fields.dashboard), overwrite: parseOverwrite(fields.overwrite) };
}

export function parseUpdate(body: unknown, uid: string): ValidUpdate {
  const fields = jsonObject('The request body', body, UPSERT_KEYS);
  if (fields.uid !== undefined && fields.uid !== null && fields.uid !== uid) {
    throw new InputError(`The body's uid ${describe(fields.uid)} differs from the uid in the path ${JSON.stringify(uid)}. Expected the same uid or none.`);
  }
  const document = parseDocument(fields.dashboard);
  const overwrite = parseOverwrite(fields.overwrite);
  if (fields.version === undefined || fields.version === null) {
    if (overwrite) return { document, expectedVersion: undefined };
    throw new InputError(
      'Missing version. Expected the version of the dashboard this update is based on (from the last read), or "overwrite": true to replace it whatever its version.',
    );
  }
  if (!Number.isSafeInteger(fields.version) || (fields.version as number) < 1) {
    throw new InputError(`Invalid version ${describe(fields.version)}. Expected a positive integer, the version of the last read.`);
  }
  return { document, expectedVersion: overwrite ? undefined : (fields.version as number) };
}

export function parseUid(value: unknown): string {
  if (typeof value !== 'string' || value.length > DASHBOARD_LIMITS.uid || !UID_PATTERN.test(value)) {
    throw new InputError(`Invalid uid ${describe(value)}. Expected 1 to ${DASHBOARD_LIMITS.uid} letters, digits, "_" or "-".`);
  }
  return value;
}

function parseOverwrite(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new InputError(`Invalid overwrite ${describe(value)}. Expected true or false.`);
  return value;
}

/**
 * The keys of the hosted document that the page relies on are checked; any other key is kept as
 * sent, since the official client treats the document as an open record.
 */
function parseDocument(value: unknown): DashboardDocument {
  if (value === undefined || value === null) {
    throw new InputError('Missing dashboard. Expected the dashboard document under "dashboard", e.g. {"dashboard": {"name": "Deploys", "charts": []}}.');
  }
  const document = jsonObject('dashboard', value);
  const name = document.name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > DASHBOARD_LIMITS.name) {
    throw new InputError(`Invalid dashboard.name ${describe(name)}. Expected 1 to ${DASHBOARD_LIMITS.name} characters.`);
  }
  optionalString('dashboard.description', document.description, DASHBOARD_LIMITS.description);
  optionalString('dashboard.owner', document.owner, DASHBOARD_LIMITS.name);
  optionalString('dashboard.timeWindowStart', document.timeWindowStart, DASHBOARD_LIMITS.name);
  optionalString('dashboard.timeWindowEnd', document.timeWindowEnd, DASHBOARD_LIMITS.name);
  for (const key of ['refreshTime', 'schemaVersion'] as const) {
    const number = document[key];
    if (number !== undefined && (typeof number !== 'number' || !Number.isFinite(number) || number < 0)) {
      throw new InputError(`Invalid dashboard.${key} ${describe(number)}. Expected a number ≥ 0.`);
    }
  }
  if (document.layout !== undefined && !Array.isArray(document.layout)) {
    throw new InputError(`Invalid dashboard.layout ${describe(document.layout)}. Expected an array of grid cells.`);
  }
  parseCharts(document.charts);
  return document;
}

function parseCharts(value: unknown): void {
  if (!Array.isArray(value)) {
    throw new InputError(
      `Invalid dashboard.charts ${describe(value)}. Expected an array of charts such as {"id": "c1", "name": "Requests", "type": "TimeSeries", "query": {"apl": "…"}}.`,
    );
  }
  if (value.length > DASHBOARD_LIMITS.charts) {
    throw new InputError(`Invalid dashboard.charts: ${value.length} charts. Expected at most ${DASHBOARD_LIMITS.charts}.`);
  }
  const ids = new Set<string>();
  value.forEach((item: unknown, index) => {
    const where = `dashboard.charts[${index}]`;
    const chart = jsonObject(where, item);
    if (typeof chart.id !== 'string' || chart.id === '' || chart.id.length > DASHBOARD_LIMITS.chartId) {
      throw new InputError(`Invalid ${where}.id ${describe(chart.id)}. Expected 1 to ${DASHBOARD_LIMITS.chartId} characters.`);
    }
    if (ids.has(chart.id)) throw new InputError(`Duplicate chart id ${JSON.stringify(chart.id)} in dashboard.charts. Expected each id once.`);
    ids.add(chart.id);
    optionalString(`${where}.name`, chart.name, DASHBOARD_LIMITS.name);
    optionalString(`${where}.type`, chart.type, DASHBOARD_LIMITS.name);
    if (chart.query !== undefined) {
      const query = jsonObject(`${where}.query`, chart.query);
      if (query.apl !== undefined && typeof query.apl !== 'string') {
        throw new InputError(`Invalid ${where}.query.apl ${describe(query.apl)}. Expected the APL query text.`);
      }
    }
  });
}

function optionalString(field: string, value: unknown, limit: number): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || value.length > limit) {
    throw new InputError(`Invalid ${field} ${describe(value)}. Expected a string of at most ${limit} characters.`);
  }
}

function describe(value: unknown): string {
  return value === undefined ? 'nothing' : previewJson(value);
}
