import type { Statement } from 'better-sqlite3';
import type { Annotation } from '../../common/annotation-contract.js';
import { randomId } from '../../common/random-id.js';
import { formatTime } from '../../common/time.js';
import type { ServiceDatabase } from '../database.js';
import { assertOrdered, type ValidNewAnnotation, type ValidPatch } from './validation.js';

export interface AnnotationQuery {
  datasets: string[];
  startMs: number | undefined;
  endMs: number | undefined;
}

export interface AnnotationStore {
  create(input: ValidNewAnnotation, nowMs: number): Annotation;
  get(id: string): Annotation | undefined;
  /** Undefined when no annotation has this id. */
  update(id: string, patch: ValidPatch, nowMs: number): Annotation | undefined;
  delete(id: string): boolean;
  list(query: AnnotationQuery): Annotation[];
  count(): number;
}

interface AnnotationRow {
  id: string;
  type: string;
  time_ms: number;
  end_ms: number | null;
  title: string | null;
  description: string | null;
  url: string | null;
  datasets: string;
}

const COLUMNS = 'a.id, a.type, a.time_ms, a.end_ms, a.title, a.description, a.url, a.datasets';

export function createAnnotationStore(db: ServiceDatabase): AnnotationStore {
  const insertAnnotation = db.prepare(
    `INSERT INTO annotations (id, type, time_ms, end_ms, title, description, url, datasets, created_ms, updated_ms)
     VALUES (@id, @type, @time_ms, @end_ms, @title, @description, @url, @datasets, @now, @now)`,
  );
  const insertDataset = db.prepare('INSERT INTO annotation_datasets (dataset, time_ms, annotation_id) VALUES (?, ?, ?)');
  const deleteDatasets = db.prepare('DELETE FROM annotation_datasets WHERE annotation_id = ?');
  const selectOne = db.prepare<[string], AnnotationRow>(`SELECT ${COLUMNS} FROM annotations a WHERE a.id = ?`);
  const updateAnnotation = db.prepare(
    `UPDATE annotations SET type = @type, time_ms = @time_ms, end_ms = @end_ms, title = @title, description = @description,
     url = @url, datasets = @datasets, updated_ms = @now WHERE id = @id`,
  );
  const deleteAnnotation = db.prepare('DELETE FROM annotations WHERE id = ?');
  const countAnnotations = db.prepare<[], { count: number }>('SELECT COUNT(*) AS count FROM annotations');
  const listAll = db.prepare<[number, number, number], AnnotationRow>(
    `SELECT ${COLUMNS} FROM annotations a
     WHERE a.time_ms BETWEEN ? AND ? AND COALESCE(a.end_ms, a.time_ms) >= ?
     ORDER BY a.time_ms, a.id`,
  );
  const listByDatasetCache = new Map<number, Statement<unknown[], AnnotationRow>>();

  /**
   * The longest span ever stored. An annotation overlapping [start, end] must begin within
   * [start - longestSpan, end], which turns the overlap test into an index range scan. The value
   * only grows while the process runs, which keeps it a safe bound after deletes and updates.
   */
  let longestSpanMs =
    (db.prepare('SELECT MAX(end_ms - time_ms) AS span FROM annotations WHERE end_ms IS NOT NULL').get() as { span: number | null }).span ?? 0;

  function noteSpan(timeMs: number, endMs: number | null): void {
    if (endMs !== null && endMs - timeMs > longestSpanMs) longestSpanMs = endMs - timeMs;
  }

  function writeDatasets(id: string, datasets: string[], timeMs: number): void {
    for (const dataset of datasets) insertDataset.run(dataset, timeMs, id);
  }

  const create = db.transaction((input: ValidNewAnnotation, nowMs: number): Annotation => {
    const row: AnnotationRow = {
      // `ann_` and 100 random bits.
      id: randomId('ann_', 20),
      type: input.type,
      time_ms: input.timeMs ?? nowMs,
      end_ms: input.endMs ?? null,
      title: input.title ?? null,
      description: input.description ?? null,
      url: input.url ?? null,
      datasets: JSON.stringify(input.datasets),
    };
    // A create with only endTime set gets time = now, which may then come after endTime.
    if (row.end_ms !== null) assertOrdered(row.time_ms, row.end_ms);
    insertAnnotation.run({ ...row, now: nowMs });
    writeDatasets(row.id, input.datasets, row.time_ms);
    noteSpan(row.time_ms, row.end_ms);
    return toAnnotation(row);
  });

  const update = db.transaction((id: string, patch: ValidPatch, nowMs: number): Annotation | undefined => {
    const current = selectOne.get(id);
    if (!current) return undefined;
    const next: AnnotationRow = {
      id,
      type: patch.type ?? current.type,
      time_ms: patch.timeMs ?? current.time_ms,
      end_ms: patch.endMs ?? current.end_ms,
      title: mergeText(current.title, patch.title),
      description: mergeText(current.description, patch.description),
      url: mergeText(current.url, patch.url),
      datasets: patch.datasets ? JSON.stringify(patch.datasets) : current.datasets,
    };
    if (next.end_ms !== null) assertOrdered(next.time_ms, next.end_ms);
    updateAnnotation.run({ ...next, now: nowMs });
    if (patch.datasets || next.time_ms !== current.time_ms) {
      deleteDatasets.run(id);
      writeDatasets(id, JSON.parse(next.datasets) as string[], next.time_ms);
    }
    noteSpan(next.time_ms, next.end_ms);
    return toAnnotation(next);
  });

  function listByDatasets(datasets: string[]): Statement<unknown[], AnnotationRow> {
    let statement = listByDatasetCache.get(datasets.length);
    if (!statement) {
      const placeholders = datasets.map(() => '?').join(', ');
      statement = db.prepare<unknown[], AnnotationRow>(
        `SELECT ${COLUMNS} FROM annotations a
         WHERE a.id IN (
           SELECT d.annotation_id FROM annotation_datasets d
           WHERE d.dataset IN (${placeholders}) AND d.time_ms BETWEEN ? AND ?
         )
         AND COALESCE(a.end_ms, a.time_ms) >= ?
         ORDER BY a.time_ms, a.id`,
      );
      listByDatasetCache.set(datasets.length, statement);
    }
    return statement;
  }

  return {
    create,
    get: (id) => {
      const row = selectOne.get(id);
      return row ? toAnnotation(row) : undefined;
    },
    update,
    delete: (id) => deleteAnnotation.run(id).changes > 0,
    list: ({ datasets, startMs, endMs }) => {
      const from = startMs === undefined ? Number.MIN_SAFE_INTEGER : startMs - longestSpanMs;
      const to = endMs ?? Number.MAX_SAFE_INTEGER;
      const overlapFrom = startMs ?? Number.MIN_SAFE_INTEGER;
      const rows = datasets.length === 0 ? listAll.all(from, to, overlapFrom) : listByDatasets(datasets).all(...datasets, from, to, overlapFrom);
      return rows.map(toAnnotation);
    },
    count: () => countAnnotations.get()?.count ?? 0,
  };
}

function mergeText(current: string | null, patched: string | undefined): string | null {
  if (patched === undefined) return current;
  return patched === '' ? null : patched;
}

function toAnnotation(row: AnnotationRow): Annotation {
  const annotation: Annotation = {
    id: row.id,
    datasets: JSON.parse(row.datasets) as string[],
    type: row.type,
    time: formatTime(row.time_ms),
  };
  if (row.end_ms !== null) annotation.endTime = formatTime(row.end_ms);
  if (row.title !== null) annotation.title = row.title;
  if (row.description !== null) annotation.description = row.description;
  if (row.url !== null) annotation.url = row.url;
  return annotation;
}
