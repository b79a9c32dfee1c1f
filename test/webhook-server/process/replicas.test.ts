/**
 * Two bridge processes behind one "load balancer" (the test), sharing one PostgreSQL schema:
 * the same deliveries reach both, and each rollout still gets exactly one annotation.
 * Needs the built CLI and the machine's PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnnotationsClient, type AnnotationsClient } from '../../../src/client/index.js';
import { episodeMarker } from '../../../webhook-server/src/correlation/episode.js';
import { exited, startTimemark } from '../../helpers/child-process.js';
import { makeTempDir, startLocalService, type LocalService } from '../../helpers/local-service.js';
import { ADMIN_TOKEN, eventually, TEST_SECRET } from '../helpers/bridge.js';
import { githubDelivery, withDeploymentId } from '../helpers/github.js';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../helpers/postgres.js';

const READY = /Timemark bridge listening on (http:\/\/\S+)/;

describe('two bridge replicas on one PostgreSQL', () => {
  let service: LocalService;
  let client: AnnotationsClient;
  const schema = uniqueSchema('bridge_replicas');

  beforeAll(async () => {
    service = await startLocalService();
    client = createAnnotationsClient({ url: service.url, token: service.token, retries: 0 });
  });
  afterAll(async () => {
    await client?.close();
    await service?.close();
    await dropSchema(schema);
  });

  it('creates exactly one annotation per rollout when both receive every delivery', async () => {
    const env = {
      TIMEMARK_URL: service.url,
      TIMEMARK_TOKEN: service.token,
      TIMEMARK_DATASETS: 'deploys',
      GITHUB_WEBHOOK_SECRET: TEST_SECRET,
      TIMEMARK_BRIDGE_ADMIN_TOKEN: ADMIN_TOKEN,
      DATABASE_URL: TEST_DATABASE_URL,
      TIMEMARK_BRIDGE_DATABASE_SCHEMA: schema,
      TIMEMARK_BRIDGE_LOG_LEVEL: 'error',
    };
    const replicas = await Promise.all([
      startTimemark(['bridge', '--port', '0', '--data-dir', makeTempDir('replica-a')], READY, env),
      startTimemark(['bridge', '--port', '0', '--data-dir', makeTempDir('replica-b')], READY, env),
    ]);
    const urls = replicas.map((replica) => replica.match[1]!);
    try {
      const rollouts = Array.from({ length: 40 }, (_, index) => 70_000 + index);
      const statuses: number[] = [];
      await Promise.all(
        rollouts.flatMap((deployment, index) =>
          ['deployment.created', 'deployment_status.success'].map(async (name, phase) => {
            const { body, headers } = githubDelivery(name, { change: withDeploymentId(deployment), delivery: `replica-${deployment}-${name}` });
            // Every delivery to both replicas at once; which answers first varies with the index.
            const order = (index + phase) % 2 === 0 ? urls : [...urls].reverse();
            const responses = await Promise.all(
              order.map((url) => fetch(`${url}/webhooks/github`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } })),
            );
            statuses.push(...responses.map((response) => response.status));
          }),
        ),
      );
      expect(statuses.filter((status) => status === 202)).toHaveLength(rollouts.length * 2);
      expect(statuses.filter((status) => status === 200)).toHaveLength(rollouts.length * 2);

      const all = await eventually(
        async () => {
          const list = await client.list({ datasets: ['deploys'], start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' });
          return list.length >= rollouts.length && list.every((annotation) => annotation.endTime) ? list : undefined;
        },
        'every rollout applied and closed',
        20_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await client.list({ datasets: ['deploys'], start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' })).toHaveLength(rollouts.length);
      for (const deployment of rollouts) {
        const marker = episodeMarker(`github:acme/shop:deployment:${deployment}`, 1);
        expect(all.filter((annotation) => annotation.description?.includes(marker))).toHaveLength(1);
      }
    } finally {
      for (const replica of replicas) replica.child.kill('SIGTERM');
      for (const replica of replicas) expect(await exited(replica.child)).toBe(0);
    }
  });
});
