/**
 * The bridge end to end: real HTTP deliveries signed like GitHub signs them, the real local
 * annotation service, and each store. Every annotation check reads the service over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnnotationsClient, type Annotation } from '../../../src/client/index.js';
import { readFacts } from '../../../src/common/annotation-facts.js';
import { startService } from '../../../src/service/server.js';
import { episodeMarker, renderAnnotation } from '../../../webhook-server/src/correlation/episode.js';
import { openPostgresStore } from '../../../webhook-server/src/store/postgres.js';
import { openSqliteStore } from '../../../webhook-server/src/store/sqlite.js';
import { makeTempDir, startLocalService, TEST_TOKEN, testServiceConfig, useLocalService } from '../../helpers/local-service.js';
import { ADMIN_TOKEN, eventually, outboxDrained, startTestBridge, type StoreKind, type TestBridge } from '../helpers/bridge.js';
import { githubDelivery, withDeploymentId } from '../helpers/github.js';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../helpers/postgres.js';

let nextDeployment = 1_000;

describe.each(['sqlite', 'postgres'] as const)('the bridge with the %s store', (kind: StoreKind) => {
  const service = useLocalService();
  let bridge: TestBridge;
  const schemas: string[] = [];
  const schema = (): string | undefined => {
    if (kind === 'sqlite') return undefined;
    const name = uniqueSchema();
    schemas.push(name);
    return name;
  };

  beforeAll(async () => {
    bridge = await startTestBridge({ serviceUrl: service.url, token: service.token, ...optional('schema', schema()) });
  });
  afterAll(async () => {
    await bridge?.close();
    for (const name of schemas) await dropSchema(name);
  });

  /** The annotations of one deployment (its title carries the short sha, its marker its key). */
  async function annotationsOf(deploymentId: number): Promise<Annotation[]> {
    const all = await service.annotations.list({ datasets: ['deploys'], start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' });
    const marker = episodeMarker(`github:acme/shop:deployment:${deploymentId}`, 1);
    return all.filter((annotation) => annotation.description?.includes(marker));
  }

  async function send(name: string, deploymentId: number, delivery?: string) {
    const { body, headers } = githubDelivery(name, { change: withDeploymentId(deploymentId), delivery: delivery ?? `${name}-${deploymentId}` });
    return bridge.post('github', body, headers);
  }

  async function settled(deploymentId: number, check: (annotation: Annotation) => boolean): Promise<Annotation> {
    return eventually(async () => {
      const found = await annotationsOf(deploymentId);
      return found.length === 1 && check(found[0]!) ? found[0] : undefined;
    }, `the annotation of deployment ${deploymentId}`);
  }

  it('opens a span when a rollout starts and closes it with the outcome when it finishes', async () => {
    const id = nextDeployment++;
    const started = await send('deployment.created', id);
    expect(started.status).toBe(202);
    const open = await settled(id, () => true);
    expect(open).toMatchObject({ datasets: ['deploys'], type: 'deploy', time: '2024-06-28T14:55:57.000Z' });
    expect(open.endTime).toBeUndefined();

    expect((await send('deployment_status.success', id)).status).toBe(202);
    const closed = await settled(id, (annotation) => annotation.endTime !== undefined);
    expect(closed).toMatchObject({ id: open.id, endTime: '2024-06-28T15:02:41.000Z', url: 'https://github.com/acme/shop/actions/runs/9712345678/job/26805551234' });
    expect(readFacts(closed.description)).toEqual({ outcome: 'success' });
  });

  it('creates nothing new when a delivery is redelivered', async () => {
    const id = nextDeployment++;
    await send('deployment.created', id, `redelivered-${id}`);
    await settled(id, () => true);
    const again = await send('deployment.created', id, `redelivered-${id}`);
    expect(again).toMatchObject({ status: 200, body: { status: 'duplicate', duplicates: 1 } });
    await outboxDrained(() => bridge.store.counts());
    expect(await annotationsOf(id)).toHaveLength(1);
  });

  it('ends with the same span when the finish arrives before the start', async () => {
    const inOrder = nextDeployment++;
    const reversed = nextDeployment++;
    await send('deployment.created', inOrder);
    await send('deployment_status.failure', inOrder);
    await send('deployment_status.failure', reversed);
    const closedFirst = await settled(reversed, (annotation) => annotation.endTime !== undefined);
    expect(closedFirst.time <= closedFirst.endTime!).toBe(true);
    await send('deployment.created', reversed);
    const a = await settled(inOrder, (annotation) => annotation.time === '2024-06-28T14:55:57.000Z' && annotation.endTime !== undefined);
    const b = await settled(reversed, (annotation) => annotation.time === '2024-06-28T14:55:57.000Z');
    const strip = ({ id: _id, description, ...rest }: Annotation) => ({ ...rest, description: description?.replace(/\[timemark:\w+\]/, '') });
    expect(strip(b)).toEqual(strip(a));
    expect(readFacts(b.description)).toEqual({ outcome: 'failure' });
  });

  it('keeps two GitHub hosts apart when they reuse a repository name and a deployment id', async () => {
    const id = nextDeployment++;
    const onHost = (htmlUrl: string) => (body: Record<string, any>) => {
      withDeploymentId(id)(body);
      body.repository.html_url = htmlUrl;
    };
    for (const host of ['https://github.com/acme/shop', 'https://ghes.example.com/acme/shop']) {
      for (const name of ['deployment.created', 'deployment_status.success']) {
        const { body, headers } = githubDelivery(name, { change: onHost(host), delivery: `${host}-${name}-${id}` });
        expect((await bridge.post('github', body, headers)).status).toBe(202);
      }
    }
    await outboxDrained(() => bridge.store.counts());
    const dotcom = await settled(id, (annotation) => annotation.endTime !== undefined);
    const [enterprise] = await bridge.store.episodes(`github:ghes.example.com/acme/shop:deployment:${id}`);
    expect(enterprise?.annotationId).toBeDefined();
    expect(enterprise?.annotationId).not.toBe(dotcom.id);
    expect((await service.annotations.get(enterprise!.annotationId!)).endTime).toBe(dotcom.endTime);
  });

  it('answers 2xx to pings and events it does not use, and changes nothing', async () => {
    const ping = githubDelivery('ping');
    expect(await bridge.post('github', ping.body, ping.headers)).toMatchObject({ status: 200, body: { status: 'ignored' } });
    const inactive = githubDelivery('deployment_status.inactive');
    expect((await bridge.post('github', inactive.body, inactive.headers)).status).toBeLessThan(300);
    const other = githubDelivery('ping');
    expect(await bridge.post('github', other.body, { ...other.headers, 'x-github-event': 'issues' })).toMatchObject({ status: 200 });
  });

  it('refuses a bad or missing signature with 401 and records nothing', async () => {
    const id = nextDeployment++;
    const forged = githubDelivery('deployment.created', { change: withDeploymentId(id), secret: 'not the secret' });
    expect((await bridge.post('github', forged.body, forged.headers)).status).toBe(401);
    const { 'x-hub-signature-256': _signature, ...unsigned } = forged.headers;
    expect((await bridge.post('github', forged.body, unsigned)).status).toBe(401);
    expect(await bridge.store.episodes(`github:acme/shop:deployment:${id}`)).toEqual([]);
  });

  it('answers 400 to a signed body that is not what GitHub sends', async () => {
    const { headers } = githubDelivery('deployment.created');
    const body = '{"action": "created", "deployment": ';
    const signed = { ...headers, 'x-hub-signature-256': `sha256=${(await import('node:crypto')).createHmac('sha256', "It's a Secret to Everybody").update(body).digest('hex')}` };
    expect((await bridge.post('github', body, signed)).status).toBe(400);
  });

  it('answers 413 to a body over the limit', async () => {
    const { headers } = githubDelivery('deployment.created');
    expect((await bridge.post('github', Buffer.alloc(1024 * 1024 + 10, 0x20), headers)).status).toBe(413);
  });

  it('answers 404 for an unknown source and 405 for a method other than POST', async () => {
    expect((await bridge.post('jenkins', '{}')).status).toBe(404);
    expect((await fetch(`${bridge.url}/webhooks/github`)).status).toBe(405);
  });

  it('shows health, readiness and Prometheus metrics', async () => {
    expect(await (await fetch(`${bridge.url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${bridge.url}/readyz`)).json()).toEqual({ status: 'ready', checks: { store: 'ok' }, dependencies: { service: 'ok' } });
    const metrics = await (await fetch(`${bridge.url}/metrics`)).text();
    expect(metrics).toMatch(/timemark_bridge_events_received_total\{source="github"\} \d+/);
    expect(metrics).toMatch(/timemark_bridge_events_deduped_total\{source="github"\} \d+/);
    expect(metrics).toMatch(/timemark_bridge_events_applied_total\{source="github"\} \d+/);
    expect(metrics).toMatch(/timemark_bridge_outbox_depth\{status="pending"\} \d+/);
    expect(metrics).toContain('timemark_bridge_apply_latency_seconds_bucket');
    expect(metrics).not.toContain(service.token);
  });

  it('keeps deliveries while the service is down and applies each once when it is back', async () => {
    const downService = await startService(testServiceConfig({ dataDir: makeTempDir('down'), tokens: [TEST_TOKEN] }));
    // A port that was just free: the service will come back on it after a while.
    const port = downService.port;
    const serviceDir = makeTempDir('down-service');
    await downService.close();
    const local = await startTestBridge({ serviceUrl: `http://127.0.0.1:${port}`, token: TEST_TOKEN, ...optional('schema', schema()) });
    try {
      const ids = [nextDeployment++, nextDeployment++, nextDeployment++];
      for (const id of ids) {
        expect((await local.post('github', ...deliveryArgs('deployment.created', id))).status).toBe(202);
        expect((await local.post('github', ...deliveryArgs('deployment_status.success', id))).status).toBe(202);
      }
      await eventually(async () => ((await local.store.episodes(`github:acme/shop:deployment:${ids[0]}`))[0]?.attempts ?? 0) >= 2 || undefined, 'failed attempts');
      const back = await startService(testServiceConfig({ port, dataDir: serviceDir, tokens: [TEST_TOKEN] }));
      const backClient = createAnnotationsClient({ url: back.url, token: TEST_TOKEN, retries: 0 });
      try {
        const annotations = await eventually(async () => {
          const all = await backClient.list({ datasets: ['deploys'], start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' });
          return all.length === ids.length && all.every((annotation) => annotation.endTime) ? all : undefined;
        }, 'every rollout applied after the service came back', 15_000);
        expect(new Set(annotations.map((annotation) => annotation.description)).size).toBe(ids.length);
      } finally {
        await backClient.close();
        await back.close();
      }
    } finally {
      await local.close();
    }
  });

  it('finds the annotation of a create whose reply was lost instead of creating a second one', async () => {
    const id = nextDeployment++;
    const key = `github:acme/shop:deployment:${id}`;
    const storeSchema = schema();
    const dataDir = makeTempDir('crash');
    // A predecessor recorded the delivery, told the service to create, and died before saving the id.
    const store = storeSchema ? await openPostgresStore({ connectionString: TEST_DATABASE_URL, schema: storeSchema }) : openSqliteStore(dataDir);
    await store.ingest(
      [
        {
          event: {
            source: 'github',
            dedupeKey: `crash-${id}`,
            correlationKey: key,
            phase: 'start',
            occurredAt: Date.parse('2024-06-28T14:55:57Z'),
            category: 'deploy',
            title: 'Deploy acme/shop',
            context: {},
          },
          target: { datasets: ['deploys'], type: 'deploy', title: 'Deploy acme/shop' },
        },
      ],
      Date.now(),
    );
    const [episode] = await store.episodes(key);
    await store.noteCreateAttempts([{ id: episode!.id, time: Date.parse('2024-06-28T14:55:57Z') }]);
    const orphan = await service.annotations.create(renderAnnotation(episode!.state, episodeMarker(key, 1)));
    await store.close();

    const restarted = await startTestBridge({ serviceUrl: service.url, token: service.token, dataDir, ...optional('schema', storeSchema) });
    try {
      await eventually(async () => ((await restarted.store.episodes(key))[0]?.status === 'synced' ? true : undefined), 'the episode synced');
      expect((await restarted.store.episodes(key))[0]?.annotationId).toBe(orphan.id);
      expect(await annotationsOf(id)).toHaveLength(1);
    } finally {
      await restarted.close();
    }
  });

  it('dead-letters an episode the service keeps refusing, shows it to the admin only, and queues it again on request', async () => {
    const local = await startTestBridge({ serviceUrl: service.url, token: 'xaat-a-token-the-service-does-not-know', delivery: { maxAttempts: 2 }, ...optional('schema', schema()) });
    try {
      const id = nextDeployment++;
      await local.post('github', ...deliveryArgs('deployment.created', id));
      const dead = await eventually(async () => {
        const response = await fetch(`${local.url}/admin/dead-letters`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        const body = (await response.json()) as { deadLetters: Array<{ id: number; correlationKey: string; lastError: string }> };
        return body.deadLetters.find((letter) => letter.correlationKey.endsWith(`:${id}`));
      }, 'a dead letter');
      expect(dead.lastError).toContain('401');
      expect(dead.lastError).not.toContain('xaat-a-token');
      expect((await fetch(`${local.url}/admin/dead-letters`)).status).toBe(401);
      expect((await fetch(`${local.url}/admin/dead-letters`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      const retry = await fetch(`${local.url}/admin/dead-letters/${dead.id}/retry`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(retry.status).toBe(200);
      expect((await fetch(`${local.url}/admin/dead-letters/999999/retry`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(404);
      // Still ready to record deliveries; the refused token shows as the service's state.
      const readiness = await fetch(`${local.url}/readyz`);
      expect(readiness.status).toBe(200);
      expect(((await readiness.json()) as { dependencies: { service: string } }).dependencies.service).toMatch(/answered 401/);
    } finally {
      await local.close();
    }
  });

  it('closes a span that never finishes after the maximum open time, and says so', async () => {
    const local = await startTestBridge({
      serviceUrl: service.url,
      token: service.token,
      delivery: { maxOpenMs: 3_600_000, sweepEveryMs: 100 },
      ...optional('schema', schema()),
    });
    try {
      const id = nextDeployment++;
      await local.post('github', ...deliveryArgs('deployment.created', id));
      const closed = await settled(id, (annotation) => annotation.endTime !== undefined);
      expect(closed.endTime).toBe('2024-06-28T15:55:57.000Z');
      expect(closed.description).toContain('no finish event within 1h');
    } finally {
      await local.close();
    }
  });
});

describe('the bridge with a source turned off', () => {
  it('answers 404 naming the variable that turns it on', async () => {
    const service = await startLocalService();
    const bridge = await startTestBridge({ serviceUrl: service.url, token: service.token, secrets: { github: ['s'] } });
    try {
      const response = await bridge.post('gitlab', '{}', { 'x-gitlab-token': 'whatever' });
      expect(response.status).toBe(404);
      expect(response.body.message).toContain('GITLAB_WEBHOOK_SECRET');
    } finally {
      await bridge.close();
      await service.close();
    }
  });

  it('answers 503 when it cannot record a delivery, so the sender retries', async () => {
    const service = await startLocalService();
    const bridge = await startTestBridge({ serviceUrl: service.url, token: service.token });
    try {
      await bridge.store.close();
      const { body, headers } = githubDelivery('deployment.created', { delivery: 'store-down' });
      expect((await bridge.post('github', body, headers)).status).toBe(503);
    } finally {
      await bridge.close().catch(() => undefined);
      await service.close();
    }
  });
});

function deliveryArgs(name: string, deploymentId: number): [Buffer, Record<string, string>] {
  const { body, headers } = githubDelivery(name, { change: withDeploymentId(deploymentId), delivery: `${name}-${deploymentId}-${Math.random()}` });
  return [body, headers];
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
