import { rmSync } from 'node:fs';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import type { Annotation } from '../../src/common/annotation-contract.js';
import { burstUntilKilled } from '../helpers/burst.js';
import { exited, startServeProcess } from '../helpers/child-process.js';
import { makeTempDir, TEST_TOKEN } from '../helpers/local-service.js';

const dataDir = makeTempDir('durability');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const startServe = () => startServeProcess(dataDir, TEST_TOKEN);

describe('durability', () => {
  it('keeps every acknowledged write after kill -9 in the middle of a burst', async () => {
    const first = await startServe();
    const headers = { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' };
    const acknowledged = new Map<string, Annotation>();
    const killAfter = 250;
    await burstUntilKilled({
      child: first.child,
      total: 400,
      killAfter,
      concurrency: 16,
      send: async (n) => {
        const response = await fetch(`${first.url}/v2/annotations`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ datasets: ['durable'], type: 'deploy', time: new Date(Date.UTC(2024, 0, 1, 0, 0, n)).toISOString(), title: `deploy ${n}` }),
        });
        if (response.status !== 201) return false;
        const annotation = (await response.json()) as Annotation;
        // An update acknowledged before the kill must survive too.
        if (n % 5 === 0) {
          const closed = await fetch(`${first.url}/v2/annotations/${annotation.id}`, {
            method: 'PUT',
            headers,
            body: JSON.stringify({ endTime: new Date(Date.parse(annotation.time) + 60_000).toISOString() }),
          });
          acknowledged.set(annotation.id, closed.status === 200 ? ((await closed.json()) as Annotation) : annotation);
        } else {
          acknowledged.set(annotation.id, annotation);
        }
        return true;
      },
    });
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(acknowledged.size).toBeGreaterThanOrEqual(killAfter);

    const second = await startServe();
    try {
      const response = await fetch(`${second.url}/v2/annotations?datasets=durable`, { headers });
      const stored = new Map(((await response.json()) as Annotation[]).map((annotation) => [annotation.id, annotation]));
      for (const [id, annotation] of acknowledged) {
        expect(stored.get(id), id).toEqual(annotation);
      }
    } finally {
      second.child.kill('SIGTERM');
      await exited(second.child);
    }
  });

  it('shuts down cleanly on SIGTERM', async () => {
    const { child } = await startServe();
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });

  it('shuts down promptly on SIGTERM while a client keeps its keep-alive connection busy', async () => {
    const { child, url } = await startServe();
    const agent = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
    let sending = true;
    let busy: () => void = () => undefined;
    const connectionBusy = new Promise<void>((resolve) => (busy = resolve));
    const sender = (async () => {
      while (sending) {
        try {
          const response = await request(`${url}/v2/annotations?datasets=busy`, { headers: { authorization: `Bearer ${TEST_TOKEN}` }, dispatcher: agent });
          await response.body.text();
          busy();
        } catch {
          // Refused once the service has gone: that is the point.
        }
      }
    })();
    await connectionBusy;
    const stopAsked = Date.now();
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    expect(Date.now() - stopAsked).toBeLessThan(5_000);
    sending = false;
    await sender;
    await agent.close();
  });
});
