import { describe, expect, it } from 'vitest';
import { startLocalService } from '../../helpers/local-service.js';
import { ADMIN_TOKEN, eventually, startTestBridge, TEST_SECRET } from '../helpers/bridge.js';
import { githubDelivery } from '../helpers/github.js';

describe('bridge logs', () => {
  it('are JSON lines about each delivery and apply that never contain a secret or a token', async () => {
    const service = await startLocalService();
    const lines: string[] = [];
    const bridge = await startTestBridge({ serviceUrl: service.url, token: service.token, logLines: lines });
    try {
      const good = githubDelivery('deployment.created', { delivery: 'logs-good' });
      expect((await bridge.post('github', good.body, good.headers)).status).toBe(202);
      const forged = githubDelivery('deployment.created', { delivery: 'logs-forged', secret: 'wrong' });
      expect((await bridge.post('github', forged.body, { ...forged.headers, authorization: `Bearer ${TEST_SECRET}` })).status).toBe(401);
      await fetch(`${bridge.url}/admin/dead-letters`, { headers: { authorization: 'Bearer not-the-admin-token' } });
      await eventually(async () => (lines.some((line) => line.includes('annotation up to date')) ? true : undefined), 'the apply logged');
    } finally {
      await bridge.close();
      await service.close();
    }
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((record) => record.msg)).toEqual(expect.arrayContaining(['delivery recorded', 'delivery refused: authenticity check failed', 'annotation up to date']));
    for (const line of lines) {
      for (const secret of [TEST_SECRET, service.token, ADMIN_TOKEN, "It\\'s a Secret"]) expect(line).not.toContain(secret);
      expect(line).not.toMatch(/sha256=[0-9a-f]{64}/);
    }
  });
});
