/**
 * Every PostgreSQL connection of the bridge runs one query at a time, by construction: pg 8 only
 * warns when a client is handed a query while it runs another, and pg 9 turns that into an error.
 * The warning is made fatal here while 64 deliveries arrive at once and the outbox applies them
 * (claims and releases on the one claims session, ingests and settles on the pool).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnnotationsClient } from '../../../src/client/index.js';
import { startLocalService, type LocalService } from '../../helpers/local-service.js';
import { outboxDrained, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { githubDelivery, withDeploymentId } from '../helpers/github.js';
import { dropSchema, uniqueSchema } from '../helpers/postgres.js';

describe('the bridge on PostgreSQL under 64 concurrent deliveries', () => {
  let service: LocalService;
  let bridge: TestBridge;
  const schema = uniqueSchema('bridge_serial');
  const warnings: Error[] = [];
  const onWarning = (warning: Error): void => {
    warnings.push(warning);
  };

  beforeAll(async () => {
    process.on('warning', onWarning);
    service = await startLocalService();
    bridge = await startTestBridge({ serviceUrl: service.url, token: service.token, schema, delivery: { concurrency: 16 } });
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await bridge?.close();
    await service?.close();
    await dropSchema(schema);
  });

  it('never hands a pg client a query while it runs another', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 64 }, async (_, index) => {
        const { body, headers } = githubDelivery('deployment.created', { change: withDeploymentId(81_000 + index), delivery: `serial-${index}` });
        return (await bridge.post('github', body, headers)).status;
      }),
    );
    expect(statuses).toEqual(Array.from({ length: 64 }, () => 202));
    const counts = await outboxDrained(() => bridge.store.counts(), 30_000);
    expect(counts).toMatchObject({ pending: 0, synced: 64, dead: 0 });

    const client = createAnnotationsClient({ url: service.url, token: service.token, retries: 0 });
    try {
      const annotations = await client.list({ datasets: ['deploys'], start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' });
      expect(annotations).toHaveLength(64);
    } finally {
      await client.close();
    }
    // Any warning from pg, the deprecation above all, fails the test.
    expect(warnings.filter((warning) => /pg@9|client\.query|already executing/i.test(warning.message)).map((warning) => warning.message)).toEqual([]);
  });
});
