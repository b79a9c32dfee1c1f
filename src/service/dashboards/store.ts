import type { DashboardDocument, DashboardResource } from '../../common/dashboard-contract.js';
import { randomId } from '../../common/random-id.js';
import { formatTime } from '../../common/time.js';
import type { ServiceDatabase } from '../database.js';

export interface DashboardPage {
  limit: number;
  offset: number;
}

/** What a write found: the new state, or why it did not happen. */
export type DashboardWrite =
  | { outcome: 'written'; dashboard: DashboardResource }
  | { outcome: 'missing' }
  | { outcome: 'exists' }
  | { outcome: 'stale'; currentVersion: number };

export interface DashboardStore {
  /** Oldest first, so that paging with offset is stable while dashboards are added. */
  list(page: DashboardPage): DashboardResource[];
  get(uid: string): DashboardResource | undefined;
  /** `uid` undefined: a new one is generated. An existing uid is `exists` unless `overwrite`. */
  create(input: { uid: string | undefined; document: DashboardDocument; overwrite: boolean }, who: string, nowMs: number): DashboardWrite;
  /** `expectedVersion` undefined: overwrite whatever is stored. */
  update(uid: string, input: { document: DashboardDocument; expectedVersion: number | undefined }, who: string, nowMs: number): DashboardWrite;
  delete(uid: string): boolean;
}

interface DashboardRow {
  id: number;
  uid: string;
  document: string;
  version: number;
  created_ms: number;
  created_by: string;
  updated_ms: number;
  updated_by: string;
}

const COLUMNS = 'id, uid, document, version, created_ms, created_by, updated_ms, updated_by';

export function createDashboardStore(db: ServiceDatabase): DashboardStore {
  const selectPage = db.prepare<[number, number], DashboardRow>(`SELECT ${COLUMNS} FROM dashboards ORDER BY id LIMIT ? OFFSET ?`);
  const selectOne = db.prepare<[string], DashboardRow>(`SELECT ${COLUMNS} FROM dashboards WHERE uid = ?`);
  const insert = db.prepare<[{ uid: string; document: string; now: number; who: string }], DashboardRow>(
    `INSERT INTO dashboards (uid, document, version, created_ms, created_by, updated_ms, updated_by)
     VALUES (@uid, @document, 1, @now, @who, @now, @who) RETURNING ${COLUMNS}`,
  );
  const replace = db.prepare<[{ uid: string; document: string; now: number; who: string }], DashboardRow>(
    `UPDATE dashboards SET document = @document, version = version + 1, updated_ms = @now, updated_by = @who
     WHERE uid = @uid RETURNING ${COLUMNS}`,
  );
  const remove = db.prepare('DELETE FROM dashboards WHERE uid = ?');

  const update = db.transaction(
    (uid: string, input: { document: DashboardDocument; expectedVersion: number | undefined }, who: string, nowMs: number): DashboardWrite => {
      const current = selectOne.get(uid);
      if (!current) return { outcome: 'missing' };
      if (input.expectedVersion !== undefined && input.expectedVersion !== current.version) {
        return { outcome: 'stale', currentVersion: current.version };
      }
      const row = replace.get({ uid, document: JSON.stringify(input.document), now: nowMs, who });
      return written(row);
    },
  );

  const create = db.transaction(
    (input: { uid: string | undefined; document: DashboardDocument; overwrite: boolean }, who: string, nowMs: number): DashboardWrite => {
      // 80 random bits: collisions are not a practical concern, and a given uid is checked below.
      const uid = input.uid ?? randomId('', 16);
      if (selectOne.get(uid)) {
        return input.overwrite ? update(uid, { document: input.document, expectedVersion: undefined }, who, nowMs) : { outcome: 'exists' };
      }
      return written(insert.get({ uid, document: JSON.stringify(input.document), now: nowMs, who }));
    },
  );

  return {
    list: ({ limit, offset }) => selectPage.all(limit, offset).map(toResource),
    get: (uid) => {
      const row = selectOne.get(uid);
      return row ? toResource(row) : undefined;
    },
    create,
    update,
    delete: (uid) => remove.run(uid).changes > 0,
  };
}

function written(row: DashboardRow | undefined): DashboardWrite {
  if (!row) throw new Error('A dashboard write returned no row; the statement and the schema disagree.');
  return { outcome: 'written', dashboard: toResource(row) };
}

function toResource(row: DashboardRow): DashboardResource {
  return {
    id: String(row.id),
    uid: row.uid,
    dashboard: JSON.parse(row.document) as DashboardDocument,
    createdAt: formatTime(row.created_ms),
    createdBy: row.created_by,
    updatedAt: formatTime(row.updated_ms),
    updatedBy: row.updated_by,
    version: row.version,
  };
}
