/**
 * Two bridge processes behind one "load balancer" (the test), sharing one PostgreSQL schema:
 * the same deliveries reach both, and each rollout still gets exactly one annotation; a replica
 * killed in the middle of an apply holds nothing up. Needs the built CLI and the machine's PostgreSQL.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnnotationsClient, type AnnotationsClient } from '../../../src/client/index.js';
import { episodeMarker } from '../../../webhook-server/src/correlation/episode.js';
import { exited, startTimemark } from '../../helpers/child-process.js';
import { makeTempDir, startLocalService, type LocalService } from '../../helpers/local-service.js';
import { ADMIN_TOKEN, adminOutbox, eventually, outboxDrained, TEST_SECRET } from '../helpers/bridge.js';
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

  const env = (serviceUrl = service.url) => ({
    TIMEMARK_URL: serviceUrl,
    TIMEMARK_TOKEN: service.token,
    TIMEMARK_DATASETS: 'deploys',
    GITHUB_WEBHOOK_SECRET: TEST_SECRET,
    TIMEMARK_BRIDGE_ADMIN_TOKEN: ADMIN_TOKEN,
    DATABASE_URL: TEST_DATABASE_URL,
    TIMEMARK_BRIDGE_DATABASE_SCHEMA: schema,
    TIMEMARK_BRIDGE_LOG_LEVEL: 'error',
  });

  it('creates exactly one annotation per rollout when both receive every delivery', async () => {
    const replicas = await Promise.all([
      startTimemark(['bridge', '--port', '0', '--data-dir', makeTempDir('replica-a')], READY, env()),
      startTimemark(['bridge', '--port', '0', '--data-dir', makeTempDir('replica-b')], READY, env()),
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
      // Nothing is left to apply in either replica, so no late duplicate can still appear.
      await outboxDrained(adminOutbox(urls[0]!));
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

  it('lets another replica, or its own restart, take over within seconds the episode a replica was applying when it was killed', async () => {
    const stall = await startStallingService();
    const deliver = async (url: string, deployment: number) => {
      const { body, headers } = githubDelivery('deployment.created', { change: withDeploymentId(deployment), delivery: `stalled-${deployment}` });
      const response = await fetch(`${url}/webhooks/github`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
      expect(response.status).toBe(202);
    };
    const applied = (deployment: number) =>
      eventually(
        async () => {
          const marker = episodeMarker(`github:acme/shop:deployment:${deployment}`, 1);
          const list = await client.list({ datasets: ['deploys'], start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' });
          return list.find((annotation) => annotation.description?.includes(marker));
        },
        `deployment ${deployment} applied`,
        // The claim used to be a 60 s lease; now it ends with the killed replica's database session.
        8_000,
      );
    const started: Array<Awaited<ReturnType<typeof startTimemark>>> = [];
    const bridge = async (serviceUrl: string, name: string) => {
      const replica = await startTimemark(['bridge', '--port', '0', '--data-dir', makeTempDir(name)], READY, env(serviceUrl));
      started.push(replica);
      return replica;
    };
    try {
      // Replica A reaches a service that never answers: it holds the episode, mid-apply, when it is killed.
      const a = await bridge(stall.url, 'stalled-a');
      await deliver(a.match[1]!, 80_001);
      await stall.creates(1);
      const b = await bridge(service.url, 'healthy-b');
      a.child.kill('SIGKILL');
      await applied(80_001);

      // With B gone, the killed replica's own restart takes its episode back just as fast.
      b.child.kill('SIGTERM');
      expect(await exited(b.child)).toBe(0);
      const a2 = await bridge(stall.url, 'stalled-a2');
      await deliver(a2.match[1]!, 80_002);
      await stall.creates(2);
      a2.child.kill('SIGKILL');
      const a3 = await bridge(service.url, 'restarted-a3');
      await applied(80_002);
      a3.child.kill('SIGTERM');
      expect(await exited(a3.child)).toBe(0);
    } finally {
      for (const replica of started) if (replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill('SIGKILL');
      await stall.close();
    }
  });
});

/** An annotation service that takes every request and never answers: an apply stays in flight. */
async function startStallingService(): Promise<{ url: string; creates(count: number): Promise<void>; close(): Promise<void> }> {
  const held: IncomingMessage[] = [];
  const server: Server = createServer((req) => {
    if (req.method === 'POST') held.push(req);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    creates: (count) => eventually(async () => (held.length >= count ? true : undefined), `${count} create(s) to reach the stalling service`).then(() => undefined),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
