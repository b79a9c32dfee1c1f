import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TEST_SECRET } from './bridge.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/webhooks/github/', import.meta.url));
const HEADERS = JSON.parse(readFileSync(`${FIXTURES}headers.json`, 'utf8')) as Record<string, Record<string, string>>;

export function githubSignature(body: Buffer | string, secret = TEST_SECRET): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** A recorded GitHub delivery (body and headers), signed; `change` edits the JSON first (e.g. another deployment id). */
export function githubDelivery(
  name: string,
  options: { delivery?: string; secret?: string; change?: (body: Record<string, any>) => void } = {},
): { body: Buffer; headers: Record<string, string> } {
  let body = readFileSync(`${FIXTURES}${name}.json`);
  if (options.change) {
    const json = JSON.parse(body.toString('utf8')) as Record<string, any>;
    options.change(json);
    body = Buffer.from(JSON.stringify(json));
  }
  const recorded = HEADERS[name] ?? {};
  return {
    body,
    headers: {
      ...recorded,
      'x-github-delivery': options.delivery ?? recorded['x-github-delivery'] ?? randomUUID(),
      'x-hub-signature-256': githubSignature(body, options.secret),
    },
  };
}

/** Another rollout: the same recorded payload with its own deployment id (and delivery ids). */
export function withDeploymentId(id: number): (body: Record<string, any>) => void {
  return (body) => {
    body.deployment.id = id;
  };
}
