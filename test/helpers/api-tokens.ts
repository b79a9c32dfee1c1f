import type { LocalService } from './local-service.js';

export interface Capabilities {
  datasetCapabilities?: Record<string, Record<string, string[]>>;
  orgCapabilities?: Record<string, string[]>;
}

/** Makes an API token with `capabilities` through `/v2/tokens`, as the service's start-up token, and returns its value and id. */
export async function mintToken(service: Pick<LocalService, 'url' | 'token'>, capabilities: Capabilities, extra: Record<string, unknown> = {}): Promise<{ token: string; id: string }> {
  const response = await fetch(`${service.url}/v2/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'test token', ...capabilities, ...extra }),
  });
  const body = (await response.json()) as { token?: string; id?: string };
  if (response.status !== 200 || !body.token || !body.id) throw new Error(`Token not created: ${response.status} ${JSON.stringify(body)}`);
  return { token: body.token, id: body.id };
}
