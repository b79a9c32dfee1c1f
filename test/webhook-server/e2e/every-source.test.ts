/**
 * Every source's recorded deliveries through real HTTP into the bridge and on to the real local
 * service, plus each authenticity and body failure branch per source.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_NAMES, type SourceName } from '../../../webhook-server/src/sources/types.js';
import { useLocalService } from '../../helpers/local-service.js';
import { eventually, startTestBridge, TEST_SECRET, type TestBridge } from '../helpers/bridge.js';
import { authHeaders } from '../helpers/signing.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/webhooks/', import.meta.url));

function cases(source: SourceName): Array<{ name: string; body: Buffer; headers: Record<string, string> }> {
  const recorded = JSON.parse(readFileSync(`${FIXTURES}${source}/headers.json`, 'utf8')) as Record<string, Record<string, string>>;
  return readdirSync(`${FIXTURES}${source}`)
    .filter((file) => file.endsWith('.json') && file !== 'headers.json')
    .map((file) => {
      const name = file.slice(0, -'.json'.length);
      return { name, body: readFileSync(`${FIXTURES}${source}/${file}`), headers: { 'content-type': 'application/json', ...(recorded[name] ?? {}) } };
    });
}

describe('every source through the bridge', () => {
  const service = useLocalService();
  let bridge: TestBridge;

  beforeAll(async () => {
    bridge = await startTestBridge({ serviceUrl: service.url, token: service.token });
  });
  afterAll(async () => {
    await bridge?.close();
  });

  const listAll = () => service.annotations.list({ datasets: ['deploys'], start: '1990-01-01T00:00:00Z', end: '2200-01-01T00:00:00Z' });

  describe.each(SOURCE_NAMES)('%s', (source) => {
    it('accepts each signed recorded delivery with a 2xx and applies it, and a redelivery adds nothing', async () => {
      const statuses: Record<string, number> = {};
      for (const delivery of cases(source)) {
        const response = await bridge.post(source, delivery.body, { ...delivery.headers, ...authHeaders(source, delivery.body, TEST_SECRET) });
        statuses[delivery.name] = response.status;
      }
      for (const [name, status] of Object.entries(statuses)) expect([name, status < 300]).toEqual([name, true]);
      expect(Object.values(statuses)).toContain(202);
      await eventually(async () => ((await bridge.store.counts()).pending === 0 ? true : undefined), 'the outbox drained');
      const before = (await listAll()).length;
      for (const delivery of cases(source)) {
        const response = await bridge.post(source, delivery.body, { ...delivery.headers, ...authHeaders(source, delivery.body, TEST_SECRET) });
        expect(response.status).toBeLessThan(300);
      }
      await eventually(async () => ((await bridge.store.counts()).pending === 0 ? true : undefined), 'the outbox drained');
      expect((await listAll()).length).toBe(before);
      expect((await bridge.store.counts()).dead).toBe(0);
    });

    it('answers 401 to a delivery signed with another secret or not signed at all', async () => {
      const [delivery] = cases(source);
      const forged = await bridge.post(source, delivery!.body, { ...delivery!.headers, ...authHeaders(source, delivery!.body, 'another secret') });
      expect(forged.status).toBe(401);
      expect(JSON.stringify(forged.body)).not.toContain(TEST_SECRET);
      expect((await bridge.post(source, delivery!.body, delivery!.headers)).status).toBe(401);
    });

    it('answers 400 to a correctly signed body that is not JSON', async () => {
      const [delivery] = cases(source);
      const body = `not json ${randomUUID()}`;
      expect((await bridge.post(source, body, { ...delivery!.headers, ...authHeaders(source, body, TEST_SECRET) })).status).toBe(400);
    });

    it('answers 413 to a body over the limit before checking anything else', async () => {
      const body = Buffer.alloc(1024 * 1024 + 1, 0x20);
      expect((await bridge.post(source, body, authHeaders(source, body, TEST_SECRET))).status).toBe(413);
    });
  });
});
