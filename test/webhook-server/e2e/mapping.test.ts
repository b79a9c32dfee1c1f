/** The configuration file's rules, applied end to end: datasets, types and titles on the real service. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAnnotationsClient } from '../../../src/client/index.js';
import { loadBridgeConfig } from '../../../webhook-server/src/config.js';
import { startLocalService } from '../../helpers/local-service.js';
import { eventually, startTestBridge, TEST_SECRET } from '../helpers/bridge.js';
import { githubDelivery } from '../helpers/github.js';
import { authHeaders } from '../helpers/signing.js';

const CONFIG = fileURLToPath(new URL('../fixtures/bridge-config.yaml', import.meta.url));
const ALERTS = fileURLToPath(new URL('../../fixtures/webhooks/alertmanager/group-firing.json', import.meta.url));

describe('mapping rules from the config file', () => {
  it('route each event to the datasets, type and title its first matching rule gives', async () => {
    const service = await startLocalService();
    const loaded = loadBridgeConfig({ configFile: CONFIG }, { TIMEMARK_URL: service.url, TIMEMARK_TOKEN: service.token, GITHUB_WEBHOOK_SECRET: 's' });
    const rules = [{ match: { 'labels.severity': 'page' }, datasets: ['incidents'] }, ...loaded.mapping.rules];
    const bridge = await startTestBridge({ serviceUrl: service.url, token: service.token, config: { mapping: { ...loaded.mapping, rules } } });
    const client = createAnnotationsClient({ url: service.url, token: service.token, retries: 0 });
    const list = (dataset: string) => client.list({ datasets: [dataset], start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' });
    try {
      const deployment = githubDelivery('deployment.created');
      expect((await bridge.post('github', deployment.body, deployment.headers)).status).toBe(202);
      const alerts = readFileSync(ALERTS);
      expect((await bridge.post('alertmanager', alerts, authHeaders('alertmanager', alerts, TEST_SECRET))).status).toBe(202);

      const [prod] = await eventually(async () => ((await list('prod-deploys')).length === 1 ? list('prod-deploys') : undefined), 'the production deploy');
      expect(prod).toMatchObject({ type: 'deploy', title: 'acme/shop → production' });
      const [paged] = await eventually(async () => ((await list('incidents')).length === 1 ? list('incidents') : undefined), 'the paging alert');
      expect(paged).toMatchObject({ type: 'alert' });
      const [ticket] = await eventually(async () => ((await list('deploys')).length === 1 ? list('deploys') : undefined), 'the other alert');
      expect(ticket).toMatchObject({ type: 'alert' });
      expect(ticket!.title).toContain('HighLatency');
    } finally {
      await client.close();
      await bridge.close();
      await service.close();
    }
  });
});
