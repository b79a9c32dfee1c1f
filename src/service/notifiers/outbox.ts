import type { ServiceDatabase } from '../database.js';
import type { MonitorNotification } from './notification.js';

/** A notification waiting for its notifier. */
export interface OutboxEntry {
  id: number;
  notifierId: string;
  monitorId: string;
  notification: MonitorNotification;
  /** Failed attempts so far. */
  attempts: number;
}

/**
 * The notification outbox, in the service's SQLite file. A notification is written in the same
 * transaction as the state change that causes it (the episode opening or closing), so neither
 * exists without the other, and it stays until its notifier accepts it or it is given up on.
 */
export interface NotificationOutbox {
  /** Runs inside the caller's transaction. `episodeKey` orders the deliveries of one episode. */
  enqueue(notifierId: string, episodeKey: string, notification: MonitorNotification, nowMs: number): void;
  /**
   * Deliveries due at `nowMs`, oldest first, at most `limit`. Only the oldest pending delivery of
   * each notifier and episode is due, so that a Closed never overtakes the Open it closes.
   */
  due(nowMs: number, limit: number): OutboxEntry[];
  /** When the next delivery not yet due becomes due; undefined when none waits. */
  nextDueAfter(nowMs: number): number | undefined;
  delivered(id: number): void;
  retryAt(id: number, error: string, nextAttemptMs: number): void;
  giveUp(id: number, error: string, nowMs: number): void;
  pendingCount(): number;
  /** Forgets deliveries given up on before `beforeMs`; returns how many. */
  purgeDead(beforeMs: number): number;
}

interface OutboxRow {
  id: number;
  notifier_id: string;
  monitor_id: string;
  notification: string;
  attempts: number;
}

export function createNotificationOutbox(db: ServiceDatabase): NotificationOutbox {
  const insert = db.prepare(
    `INSERT INTO notification_outbox (notifier_id, monitor_id, episode_key, notification, next_attempt_ms, created_ms)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const selectDue = db.prepare<[number, number], OutboxRow>(
    `SELECT o.id, o.notifier_id, o.monitor_id, o.notification, o.attempts FROM notification_outbox o
     WHERE o.dead_ms IS NULL AND o.next_attempt_ms <= ?
       AND NOT EXISTS (
         SELECT 1 FROM notification_outbox p
         WHERE p.dead_ms IS NULL AND p.notifier_id = o.notifier_id AND p.episode_key = o.episode_key AND p.id < o.id
       )
     ORDER BY o.next_attempt_ms, o.id LIMIT ?`,
  );
  const selectNext = db.prepare<[number], { next: number | null }>(
    'SELECT MIN(next_attempt_ms) AS next FROM notification_outbox WHERE dead_ms IS NULL AND next_attempt_ms > ?',
  );
  const remove = db.prepare('DELETE FROM notification_outbox WHERE id = ?');
  const reschedule = db.prepare('UPDATE notification_outbox SET attempts = attempts + 1, last_error = ?, next_attempt_ms = ? WHERE id = ?');
  const bury = db.prepare('UPDATE notification_outbox SET attempts = attempts + 1, last_error = ?, dead_ms = ? WHERE id = ?');
  const countPending = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM notification_outbox WHERE dead_ms IS NULL');
  const purge = db.prepare('DELETE FROM notification_outbox WHERE dead_ms IS NOT NULL AND dead_ms < ?');

  return {
    enqueue(notifierId, episodeKey, notification, nowMs) {
      insert.run(notifierId, notification.monitorId, episodeKey, JSON.stringify(notification), nowMs, nowMs);
    },
    due: (nowMs, limit) =>
      selectDue.all(nowMs, limit).map((row) => ({
        id: row.id,
        notifierId: row.notifier_id,
        monitorId: row.monitor_id,
        notification: JSON.parse(row.notification) as MonitorNotification,
        attempts: row.attempts,
      })),
    nextDueAfter: (nowMs) => selectNext.get(nowMs)?.next ?? undefined,
    delivered: (id) => {
      remove.run(id);
    },
    retryAt: (id, error, nextAttemptMs) => {
      reschedule.run(error, nextAttemptMs, id);
    },
    giveUp: (id, error, nowMs) => {
      bury.run(error, nowMs, id);
    },
    pendingCount: () => countPending.get()?.n ?? 0,
    purgeDead: (beforeMs) => purge.run(beforeMs).changes,
  };
}
