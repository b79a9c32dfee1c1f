import { createHmac } from 'node:crypto';
import type { SourceName } from '../../../webhook-server/src/sources/types.js';

const hex = (algorithm: 'sha1' | 'sha256', secret: string, body: Buffer | string): string => createHmac(algorithm, secret).update(body).digest('hex');

/** The authenticity headers each sender attaches (see webhook-sources.md), computed over the exact bytes. */
export function authHeaders(source: SourceName, body: Buffer | string, secret: string): Record<string, string> {
  switch (source) {
    case 'github':
      return { 'x-hub-signature-256': `sha256=${hex('sha256', secret, body)}` };
    case 'gitlab':
      return { 'x-gitlab-token': secret };
    case 'vercel':
      return { 'x-vercel-signature': hex('sha1', secret, body) };
    case 'flux':
      return { 'x-signature': `sha256=${hex('sha256', secret, body)}` };
    case 'grafana':
      return { 'x-grafana-alerting-signature': hex('sha256', secret, body) };
    case 'pagerduty':
      return { 'x-pagerduty-signature': `v1=${hex('sha256', secret, body)}` };
    case 'argocd':
    case 'monitor':
    case 'alertmanager':
      return { authorization: `Bearer ${secret}` };
  }
}
