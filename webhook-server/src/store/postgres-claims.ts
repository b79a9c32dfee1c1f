/**
 * Claims on PostgreSQL: a session-level advisory lock per episode, all held by one dedicated
 * connection of this process. Its statements go through a serial queue: a pg.Client runs one
 * query at a time, and the locks must stay on this one session, so concurrent workers wait in
 * line here rather than inside pg (which only tolerates that until pg 9). The server drops a session's advisory locks the moment the session
 * ends, so a replica killed with `kill -9` (its socket closed by the kernel) frees its episodes at
 * once, and one whose host vanished frees them when TCP keepalives give up on it (about 25 s).
 * Nothing expires on a clock, so a slow apply is never taken over while its holder lives.
 */
import pg from 'pg';
import type { ClaimLocks } from './sql-store.js';

/** The claims connection's name in pg_stat_activity, so an operator can tell it from the pool's. */
export const CLAIMS_APPLICATION_NAME = 'timemark-bridge-claims';

interface Session {
  client: pg.Client;
  alive: boolean;
}

/** A placeholder while the lock is being asked for, so that two workers here never ask for one episode together. */
const ASKING = 'asking';

export function createSessionClaims(config: pg.ClientConfig): ClaimLocks {
  /** The session that holds each claim of this process. */
  const held = new Map<number, Session | typeof ASKING>();
  let session: Session | undefined;
  let opening: Promise<Session> | undefined;

  async function open(): Promise<Session> {
    const client = new pg.Client({ ...config, application_name: CLAIMS_APPLICATION_NAME, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    const opened: Session = { client, alive: true };
    // A dropped connection has already taken its locks with it; the next claim opens another session.
    const lost = (): void => {
      opened.alive = false;
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      // The server's side of the keepalive: a vanished host's session, and its locks, end in about 25 s.
      await client.query('SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3');
    } catch (error) {
      lost();
      await client.end().catch(() => undefined);
      throw error;
    }
    session = opened;
    return opened;
  }

  function current(): Promise<Session> {
    if (session?.alive) return Promise.resolve(session);
    opening ??= open().finally(() => {
      opening = undefined;
    });
    return opening;
  }

  /** The tail of the session's queue: each statement starts once the one before it has settled. */
  let tail: Promise<unknown> = Promise.resolve();
  function serial<T>(statement: () => Promise<T>): Promise<T> {
    const turn = tail.then(statement, statement);
    tail = turn.catch(() => undefined);
    return turn;
  }

  /** The lock's key: the episode id within the bridge's schema, since several bridges may share one database. */
  const lockKey = (column: string): string => `hashtextextended(current_schema() || ':episode:' || ${column}::text, 0)`;

  async function end(target: Session): Promise<void> {
    target.alive = false;
    await target.client.end().catch(() => undefined);
  }

  return {
    async acquire(ids, limit) {
      // Marked before the first await, so that a worker here asking at the same time skips them.
      const asking = [...new Set(ids)].filter((id) => !held.has(id)).slice(0, limit);
      if (asking.length === 0) return [];
      for (const id of asking) held.set(id, ASKING);
      try {
        const { holder, rows } = await serial(async () => {
          const opened = await current();
          // One round trip for the whole batch: each id is tried once, whatever the others give.
          const answer = await opened.client.query<{ id: string }>(
            `SELECT id FROM unnest($1::bigint[]) AS asked(id) WHERE pg_try_advisory_lock(${lockKey('asked.id')})`,
            [asking],
          );
          return { holder: opened, rows: answer.rows };
        });
        const locked = new Set(rows.map((row) => Number(row.id)));
        for (const id of asking) {
          if (locked.has(id)) held.set(id, holder);
          else held.delete(id);
        }
        return asking.filter((id) => locked.has(id));
      } catch (error) {
        for (const id of asking) held.delete(id);
        throw error;
      }
    },

    async release(ids) {
      const bySession = new Map<Session, number[]>();
      for (const id of ids) {
        const holder = held.get(id);
        held.delete(id);
        if (holder === undefined || holder === ASKING || !holder.alive) continue;
        bySession.set(holder, [...(bySession.get(holder) ?? []), id]);
      }
      for (const [holder, mine] of bySession) {
        try {
          await serial(() => holder.client.query(`SELECT pg_advisory_unlock(${lockKey('given.id')}) FROM unnest($1::bigint[]) AS given(id)`, [mine]));
        } catch {
          // The locks may still be held by a session that no longer answers: ending the session
          // frees them (with this process's other claims, whose completes the recorded owner fences).
          await end(holder);
        }
      }
    },

    get heldCount() {
      return held.size;
    },

    async close() {
      held.clear();
      if (session) await end(session);
      await opening?.then(end, () => undefined);
    },
  };
}
