/**
 * `npm start` (timemark start) as a new user meets it: the printed curl commands, run as printed,
 * open and then close a span on the local service. Needs the built CLI, curl and openssl.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createAnnotationsClient } from '../../../src/client/index.js';
import { exited, run, startTimemark } from '../../helpers/child-process.js';
import { makeTempDir } from '../../helpers/local-service.js';
import { eventually } from '../helpers/bridge.js';

describe('timemark start', () => {
  const serviceDir = makeTempDir('start-service');
  const bridgeDir = makeTempDir('start-bridge');
  afterAll(() => {
    rmSync(serviceDir, { recursive: true, force: true });
    rmSync(bridgeDir, { recursive: true, force: true });
  });

  it('runs the service and the bridge wired together, and its sample curls open and close a span', async () => {
    const started = await startTimemark(
      ['start', '--port', '0', '--bridge-port', '0', '--data-dir', serviceDir, '--bridge-data-dir', bridgeDir],
      /See it:\n.*\n/,
    );
    try {
      const output = started.output();
      const serviceUrl = /local service listening on (\S+)/.exec(output)?.[1];
      const token = /token:\s+(xaat-\S+)/.exec(output)?.[1];
      expect(output).toMatch(/Timemark bridge listening on http:\/\/127\.0\.0\.1:\d+/);
      for (const variable of ['GITHUB', 'GITLAB', 'VERCEL', 'ARGOCD', 'FLUX', 'MONITOR', 'ALERTMANAGER', 'GRAFANA', 'PAGERDUTY']) {
        expect(output).toContain(`${variable}_WEBHOOK_SECRET=`);
      }
      const curls = output.split('\n').filter((line) => line.trim().startsWith('curl '));
      expect(curls).toHaveLength(2);
      const client = createAnnotationsClient({ url: serviceUrl!, token: token!, retries: 0 });
      const list = () => client.list({ datasets: ['demo'], start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' });
      try {
        const opened = await run('bash', ['-c', curls[0]!]);
        expect(opened.stdout).toContain('"status":"accepted"');
        const [open] = await eventually(async () => ((await list()).length === 1 ? list() : undefined), 'the span opened');
        expect(open?.endTime).toBeUndefined();
        const closing = await run('bash', ['-c', curls[1]!]);
        expect(closing.stdout).toContain('"status":"accepted"');
        const [closed] = await eventually(async () => {
          const all = await list();
          return all.length === 1 && all[0]!.endTime ? all : undefined;
        }, 'the span closed');
        expect(closed).toMatchObject({ id: open!.id, type: 'deploy', time: '2025-01-15T10:00:00.000Z', endTime: '2025-01-15T10:07:30.000Z' });
      } finally {
        await client.close();
      }
    } finally {
      started.child.kill('SIGTERM');
      expect(await exited(started.child)).toBe(0);
    }
  });
});
