import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { storeLockSql } from '../../../webhook-server/src/store/postgres.js';
import { FOLD_LOCK } from '../../../webhook-server/src/store/sql-store.js';
import { startLocalService } from '../../helpers/local-service.js';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { githubDelivery, withDeploymentId } from '../helpers/github.js';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../helpers/postgres.js';

/**
 * A PostgreSQL bridge (its own schema, a local service to apply to) and `blocker`, another
 * session on the same database that can hold the bridge's locks as a stuck replica would.
 */
async function withBlockedBridge(test: (bridge: TestBridge, blocker: pg.Client, schema: string) => Promise<void>): Promise<void> {
  const service = await startLocalService();
  const schema = uniqueSchema();
  const bridge = await startTestBridge({ serviceUrl: service.url, token: service.token, schema });
  const blocker = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await blocker.connect();
  try {
    await test(bridge, blocker, schema);
  } finally {
    await blocker.end();
    await bridge.close();
    await service.close();
    await dropSchema(schema);
  }
}

describe('a store that does not answer in time', () => {
  it('gets a 503 well inside the senders’ deadlines, and the retry after it is a harmless duplicate', async () => {
    await withBlockedBridge(async (bridge, blocker, schema) => {
      const deployment = 880_000 + Math.floor(Math.random() * 1000);
      // Hold the events table from outside, as a stuck replica or a slow disk would: inserts wait.
      await blocker.query('BEGIN');
      await blocker.query(`LOCK TABLE "${schema}".bridge_events IN SHARE MODE`);
      const { body, headers } = githubDelivery('deployment.created', { change: withDeploymentId(deployment), delivery: `deadline-${deployment}` });
      const started = Date.now();
      const first = await bridge.post('github', body, headers);
      expect(first.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(5_000);
      await blocker.query('COMMIT');
      const retry = await bridge.post('github', body, headers);
      expect(retry.status === 200 || retry.status === 202).toBe(true);
      expect(await bridge.store.episodes(`github:acme/shop:deployment:${deployment}`)).toHaveLength(1);
    });
  });

  it('acknowledges deliveries while another replica holds the fold, and folds them once it lets go; another schema\'s fold never holds it up', async () => {
    await withBlockedBridge(async (bridge, blocker, schema) => {
      const deployment = 890_000 + Math.floor(Math.random() * 1000);
      // The fold's lock of a bridge kept in another schema is not this bridge's: it folds on.
      await blocker.query('SET search_path TO public');
      await blocker.query(`SELECT pg_advisory_lock(${storeLockSql(BigInt(FOLD_LOCK))})`);
      const other = githubDelivery('deployment.created', { change: withDeploymentId(deployment + 1), delivery: `fold-other-${deployment}` });
      expect((await bridge.post('github', other.body, other.headers)).status).toBe(202);
      expect(await bridge.store.episodes(`github:acme/shop:deployment:${deployment + 1}`)).toHaveLength(1);
      await blocker.query('SELECT pg_advisory_unlock_all()');
      // The fold's lock as the bridge keys it: in its schema.
      await blocker.query(`SET search_path TO "${schema}"`);
      await blocker.query(`SELECT pg_advisory_lock(${storeLockSql(BigInt(FOLD_LOCK))})`);
      const started = Date.now();
      for (const [name, delivery] of [
        ['deployment.created', `fold-a-${deployment}`],
        ['deployment_status.success', `fold-b-${deployment}`],
      ] as const) {
        const { body, headers } = githubDelivery(name, { change: withDeploymentId(deployment), delivery });
        expect((await bridge.post('github', body, headers)).status).toBe(202);
      }
      expect(Date.now() - started).toBeLessThan(2_000);
      // A read folds first, so it waits for the fold lock rather than answer without the events.
      const read = bridge.store.episodes(`github:acme/shop:deployment:${deployment}`);
      const early = await Promise.race([read.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 300))]);
      expect(early).toBe('waiting');
      await blocker.query('SELECT pg_advisory_unlock_all()');
      const episodes = await read;
      expect(episodes).toHaveLength(1);
      expect(episodes[0]?.state).toMatchObject({ startedAt: expect.any(Number), endedAt: expect.any(Number), outcome: 'success' });
    });
  });
});
