/**
 * The durability promise with the real CLI: a delivery that got a 2xx is applied exactly once,
 * even when the bridge is killed with SIGKILL (or stopped with SIGTERM) in the middle of a burst
 * and restarted on the same data dir.
 * Needs the built CLI (npm run build; npm test does it first).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnnotationsClient, type Annotation, type AnnotationsClient } from '../../../src/client/index.js';
import { episodeMarker } from '../../../webhook-server/src/correlation/episode.js';
import { exited, startTimemark } from '../../helpers/child-process.js';
import { makeTempDir, startLocalService, type LocalService } from '../../helpers/local-service.js';
import { ADMIN_TOKEN, eventually, TEST_SECRET } from '../helpers/bridge.js';
import { githubDelivery, withDeploymentId } from '../helpers/github.js';

const READY = /Timemark bridge listening on (http:\/\/\S+)/;

describe('a bridge stopped or killed during a burst', () => {
  let service: LocalService;
  let client: AnnotationsClient;
  let dataDir: string;

  beforeAll(async () => {
    service = await startLocalService();
    client = createAnnotationsClient({ url: service.url, token: service.token, retries: 0 });
    dataDir = makeTempDir('bridge-kill');
  });
  afterAll(async () => {
    await client?.close();
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const env = () => ({
    TIMEMARK_URL: service.url,
    TIMEMARK_TOKEN: service.token,
    TIMEMARK_DATASETS: 'deploys',
    GITHUB_WEBHOOK_SECRET: TEST_SECRET,
    TIMEMARK_BRIDGE_ADMIN_TOKEN: ADMIN_TOKEN,
    TIMEMARK_BRIDGE_LOG_LEVEL: 'error',
  });

  it.each([
    ['SIGKILL', 50_000],
    ['SIGTERM', 60_000],
  ] as const)('applies every acknowledged delivery exactly once after a %s and a restart', async (signal, base) => {
    const first = await startTimemark(['bridge', '--port', '0', '--data-dir', dataDir], READY, env());
    const url = first.match[1]!;
    const rollouts = 150;
    const acknowledged = new Map<number, Set<string>>();
    let sent = 0;
    let killed = false;

    async function sender(): Promise<void> {
      while (sent < rollouts * 2) {
        const index = sent++;
        const deployment = base + Math.floor(index / 2);
        const name = index % 2 === 0 ? 'deployment.created' : 'deployment_status.success';
        const { body, headers } = githubDelivery(name, { change: withDeploymentId(deployment), delivery: `${signal}-${index}` });
        try {
          const response = await fetch(`${url}/webhooks/github`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
          if (response.status === 202) {
            const set = acknowledged.get(deployment) ?? new Set<string>();
            set.add(name);
            acknowledged.set(deployment, set);
          }
        } catch {
          // Refused or reset by the kill: not acknowledged, so nothing is promised for it.
        }
        if (!killed && index === Math.floor(rollouts * 0.6)) {
          killed = true;
          first.child.kill(signal);
        }
      }
    }
    await Promise.all(Array.from({ length: 8 }, () => sender()));
    const code = await exited(first.child);
    // A stop request drains in-flight work and exits cleanly; SIGKILL gives no chance to.
    if (signal === 'SIGTERM') expect(code).toBe(0);
    expect(acknowledged.size).toBeGreaterThan(20);

    const second = await startTimemark(['bridge', '--port', '0', '--data-dir', dataDir], READY, env());
    try {
      const annotations = await eventually(
        async () => {
          const all = await client.list({ datasets: ['deploys'], start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' });
          const complete = [...acknowledged].every(([deployment, names]) => {
            const found = byDeployment(all, deployment);
            return found.length === 1 && (!names.has('deployment_status.success') || found[0]!.endTime !== undefined);
          });
          return complete ? all : undefined;
        },
        'every acknowledged delivery applied',
        30_000,
      );
      for (let deployment = base; deployment < base + rollouts; deployment++) {
        expect([deployment, byDeployment(annotations, deployment).length <= 1]).toEqual([deployment, true]);
      }
    } finally {
      second.child.kill('SIGTERM');
      expect(await exited(second.child)).toBe(0);
    }
  });
});

function byDeployment(annotations: Annotation[], deployment: number): Annotation[] {
  const marker = episodeMarker(`github:acme/shop:deployment:${deployment}`, 1);
  return annotations.filter((annotation) => annotation.description?.includes(marker));
}
