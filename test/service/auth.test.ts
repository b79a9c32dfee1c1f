import { describe, expect, it } from 'vitest';
import { TEST_ORG, TEST_PERSONAL_TOKEN, useLocalService } from '../helpers/local-service.js';

const service = useLocalService();

async function status(headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service.url}/v2/annotations`, { headers });
  return { status: response.status, body: await response.json() };
}

describe('authentication', () => {
  it('accepts a known API token', async () => {
    expect((await status({ authorization: `Bearer ${service.token}` })).status).toBe(200);
  });

  it('answers 401 without a token, with a malformed header, or with an unknown token', async () => {
    for (const authorization of [undefined, 'Basic abc', 'Bearer', `Bearer ${service.token}x`]) {
      const reply = await status(authorization === undefined ? {} : { authorization });
      expect(reply.status, String(authorization)).toBe(401);
      expect(reply.body.code).toBe(401);
    }
  });

  it('never echoes the presented token', async () => {
    const secret = 'xaat-this-is-a-wrong-but-secret-token';
    const reply = await status({ authorization: `Bearer ${secret}` });
    expect(JSON.stringify(reply.body)).not.toContain(secret);
  });

  it('accepts a personal token only with the configured org id', async () => {
    expect((await status({ authorization: `Bearer ${TEST_PERSONAL_TOKEN}`, 'x-axiom-org-id': TEST_ORG })).status).toBe(200);
    expect((await status({ authorization: `Bearer ${TEST_PERSONAL_TOKEN}` })).status).toBe(401);
    const otherOrg = await status({ authorization: `Bearer ${TEST_PERSONAL_TOKEN}`, 'X-AXIOM-ORG-ID': 'someone-else' });
    expect(otherOrg.status).toBe(403);
    expect(otherOrg.body.message).toMatch(/someone-else/);
  });
});
