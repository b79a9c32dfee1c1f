import type { ServiceDatabase } from '../database.js';

/** A threshold monitor (or one group of it) in alert, from the run that opened it. */
export interface OpenEpisode {
  monitorId: string;
  /** JSON of the group values: the episode's key within its monitor ("[]" without groups). */
  groupKey: string;
  groupKeys: string[];
  groupValues: unknown[];
  annotationId: string | undefined;
  openedMs: number;
}

/**
 * What monitors remember between evaluations, restarts included: open episodes, the events
 * match monitors have notified, and when each monitor last ran on schedule. Every write runs
 * inside the evaluation's transaction.
 */
export interface MonitorState {
  openEpisodes(monitorId: string): OpenEpisode[];
  open(episode: OpenEpisode): void;
  close(monitorId: string, groupKey: string): void;
  /** Records the event as notified; false when it already was. */
  rememberMatch(monitorId: string, eventHash: string, eventMs: number): boolean;
  /** Forgets notified events older than `beforeMs`: windows never reach back to them again. */
  forgetMatches(monitorId: string, beforeMs: number): void;
  lastScheduledEnd(monitorId: string): number | undefined;
  recordScheduledEnd(monitorId: string, endMs: number): void;
}

interface EpisodeRow {
  monitor_id: string;
  group_values: string;
  group_keys: string;
  annotation_id: string | null;
  opened_ms: number;
}

export function createMonitorState(db: ServiceDatabase): MonitorState {
  const selectOpen = db.prepare<[string], EpisodeRow>(
    'SELECT monitor_id, group_values, group_keys, annotation_id, opened_ms FROM monitor_episodes WHERE monitor_id = ? ORDER BY opened_ms, group_values',
  );
  const insertEpisode = db.prepare(
    'INSERT INTO monitor_episodes (monitor_id, group_values, group_keys, annotation_id, opened_ms) VALUES (?, ?, ?, ?, ?)',
  );
  const deleteEpisode = db.prepare('DELETE FROM monitor_episodes WHERE monitor_id = ? AND group_values = ?');
  const insertMatch = db.prepare('INSERT OR IGNORE INTO monitor_matches (monitor_id, event_hash, event_ms) VALUES (?, ?, ?)');
  const deleteMatches = db.prepare('DELETE FROM monitor_matches WHERE monitor_id = ? AND event_ms < ?');
  const selectSchedule = db.prepare<[string], { last_end_ms: number }>('SELECT last_end_ms FROM monitor_schedule WHERE monitor_id = ?');
  const upsertSchedule = db.prepare(
    'INSERT INTO monitor_schedule (monitor_id, last_end_ms) VALUES (?, ?) ON CONFLICT (monitor_id) DO UPDATE SET last_end_ms = excluded.last_end_ms',
  );

  return {
    openEpisodes: (monitorId) =>
      selectOpen.all(monitorId).map((row) => ({
        monitorId: row.monitor_id,
        groupKey: row.group_values,
        groupKeys: JSON.parse(row.group_keys) as string[],
        groupValues: JSON.parse(row.group_values) as unknown[],
        annotationId: row.annotation_id ?? undefined,
        openedMs: row.opened_ms,
      })),
    open: (episode) => {
      insertEpisode.run(episode.monitorId, episode.groupKey, JSON.stringify(episode.groupKeys), episode.annotationId ?? null, episode.openedMs);
    },
    close: (monitorId, groupKey) => {
      deleteEpisode.run(monitorId, groupKey);
    },
    rememberMatch: (monitorId, eventHash, eventMs) => insertMatch.run(monitorId, eventHash, eventMs).changes > 0,
    forgetMatches: (monitorId, beforeMs) => {
      deleteMatches.run(monitorId, beforeMs);
    },
    lastScheduledEnd: (monitorId) => selectSchedule.get(monitorId)?.last_end_ms,
    recordScheduledEnd: (monitorId, endMs) => {
      upsertSchedule.run(monitorId, endMs);
    },
  };
}
