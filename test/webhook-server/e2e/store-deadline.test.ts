import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startLocalService } from '../../helpers/local-service.js';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { githubDelivery, withDeploymentId } from '../helpers/github.js';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../helpers/postgres.js';

/**
 * A PostgreSQL bridge (its own schema, a local service to apply to) and `blocker`, another
 * session on the same database that can hold the bridge's locks as a stuck replica would.
 */
async function withBlockedBridge(test: (bridge: TestBridge, blocker: pg.Client) => Promise<void>): Promise<void> {
  const service = await startLocalService();
  const schema = uniqueSchema();
  const bridge = await startTestBridge({ serviceUrl: service.url, token: service.token, schema });
  const blocker = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await blocker.connect();
  try {
    await test(bridge, blocker);
  } finally {
    await blocker.end();
    await bridge.close();
    await service.close();
    await dropSchema(schema);
  }
}

describe('a store that does not answer in time', () => {
  it('gets a 503 well inside the senders’ deadlines, and the retry after it is a harmless duplicate', async () => {
    await withBlockedBridge(async (bridge, blocker) => {
      const deployment = 880_000 + Math.floor(Math.random() * 1000);
      // Hold the episode's lock from outside, as a stuck replica or a slow disk would.
      await blocker.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`github:acme/shop:deployment:${deployment}`]);
      const { body, headers } = githubDelivery('deployment.created', { change: withDeploymentId(deployment), delivery: `deadline-${deployment}` });
      const started = Date.now();
      const first = await bridge.post('github', body, headers);
      expect(first.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(5_000);
      await blocker.query('SELECT pg_advisory_unlock_all()');
      const retry = await bridge.post('github', body, headers);
      expect(retry.status === 200 || retry.status === 202).toBe(true);
      expect(await bridge.store.episodes(`github:acme/shop:deployment:${deployment}`)).toHaveLength(1);
    });
  });

  it('records other rollouts while one waits on a lock another replica holds', async () => {
    await withBlockedBridge(async (bridge, blocker) => {
      const held = 890_000 + Math.floor(Math.random() * 1000);
      await blocker.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`github:acme/shop:deployment:${held}`]);
      const waiting = githubDelivery('deployment.created', { change: withDeploymentId(held), delivery: `held-${held}` });
      const stuck = bridge.post('github', waiting.body, waiting.headers);
      const other = githubDelivery('deployment.created', { change: withDeploymentId(held + 1), delivery: `free-${held}` });
      const started = Date.now();
      expect((await bridge.post('github', other.body, other.headers)).status).toBe(202);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect((await stuck).status).toBe(503);
    });
  });
});
