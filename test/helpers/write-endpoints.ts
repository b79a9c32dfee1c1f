/**
 * Every endpoint of the local service and the bridge that reads a request body, as data, for the
 * tests that throw arbitrary bodies at all of them. A route that reads a body is added here.
 */
import { SOURCE_NAMES } from '../../webhook-server/src/sources/types.js';
import { authHeaders } from '../webhook-server/helpers/signing.js';

/** Where the running parts are, and what a request needs to get past authentication. */
export interface Targets {
  service: { url: string; token: string; annotationId: string; monitorId: string; notifierId: string; tokenId: string; virtualFieldId: string };
  bridge: { url: string; secret: string; adminToken: string };
}

export interface WriteEndpoint {
  /** Shown when the property fails, e.g. "service POST /v2/annotations". */
  name: string;
  method: 'POST' | 'PUT';
  url(targets: Targets): string;
  /** The headers of a request with this body: credentials (signatures over the body itself) and a content type. */
  headers(body: Buffer, targets: Targets): Record<string, string>;
}

const serviceHeaders = (_body: Buffer, targets: Targets): Record<string, string> => ({
  authorization: `Bearer ${targets.service.token}`,
  'content-type': 'application/json',
});

export const WRITE_ENDPOINTS: readonly WriteEndpoint[] = [
  { name: 'service POST /v2/annotations', method: 'POST', url: (t) => `${t.service.url}/v2/annotations`, headers: serviceHeaders },
  { name: 'service PUT /v2/annotations/{id}', method: 'PUT', url: (t) => `${t.service.url}/v2/annotations/${t.service.annotationId}`, headers: serviceHeaders },
  { name: 'service POST /v2/datasets', method: 'POST', url: (t) => `${t.service.url}/v2/datasets`, headers: serviceHeaders },
  { name: 'service POST /v1/datasets', method: 'POST', url: (t) => `${t.service.url}/v1/datasets`, headers: serviceHeaders },
  { name: 'service PUT /v1/datasets/{id}', method: 'PUT', url: (t) => `${t.service.url}/v1/datasets/any-body`, headers: serviceHeaders },
  { name: 'service POST /v1/datasets/{id}/trim', method: 'POST', url: (t) => `${t.service.url}/v1/datasets/any-body/trim`, headers: serviceHeaders },
  { name: 'service POST /v2/tokens', method: 'POST', url: (t) => `${t.service.url}/v2/tokens`, headers: serviceHeaders },
  { name: 'service POST /v2/tokens/{id}/regenerate', method: 'POST', url: (t) => `${t.service.url}/v2/tokens/${t.service.tokenId}/regenerate`, headers: serviceHeaders },
  { name: 'service POST /v2/vfields', method: 'POST', url: (t) => `${t.service.url}/v2/vfields`, headers: serviceHeaders },
  { name: 'service PUT /v2/vfields/{id}', method: 'PUT', url: (t) => `${t.service.url}/v2/vfields/${t.service.virtualFieldId}`, headers: serviceHeaders },
  ...(['traces', 'logs'] as const).flatMap((signal): WriteEndpoint[] =>
    (['application/json', 'application/x-protobuf'] as const).map((type) => ({
      name: `service POST /v1/${signal} (${type})`,
      method: 'POST',
      url: (t) => `${t.service.url}/v1/${signal}`,
      headers: (_body, t) => ({ authorization: `Bearer ${t.service.token}`, 'content-type': type, 'x-axiom-dataset': 'any-body-otel' }),
    })),
  ),
  {
    name: 'service POST /v1/metrics (application/x-protobuf)',
    method: 'POST',
    url: (t) => `${t.service.url}/v1/metrics`,
    headers: (_body, t) => ({ authorization: `Bearer ${t.service.token}`, 'content-type': 'application/x-protobuf', 'x-axiom-metrics-dataset': 'any-body-otel' }),
  },
  { name: 'service POST /v2/monitors', method: 'POST', url: (t) => `${t.service.url}/v2/monitors`, headers: serviceHeaders },
  { name: 'service PUT /v2/monitors/{id}', method: 'PUT', url: (t) => `${t.service.url}/v2/monitors/${t.service.monitorId}`, headers: serviceHeaders },
  { name: 'service POST /v2/notifiers', method: 'POST', url: (t) => `${t.service.url}/v2/notifiers`, headers: serviceHeaders },
  { name: 'service PUT /v2/notifiers/{id}', method: 'PUT', url: (t) => `${t.service.url}/v2/notifiers/${t.service.notifierId}`, headers: serviceHeaders },
  ...SOURCE_NAMES.map(
    (source): WriteEndpoint => ({
      name: `bridge POST /webhooks/${source}`,
      method: 'POST',
      url: (t) => `${t.bridge.url}/webhooks/${source}`,
      // Signed with the real secret, so that every body reaches the source's parser.
      headers: (body, t) => ({
        'content-type': 'application/json',
        'x-github-event': 'deployment',
        ...authHeaders(source, body, t.bridge.secret),
      }),
    }),
  ),
  {
    name: 'bridge POST /admin/dead-letters/{id}/retry',
    method: 'POST',
    url: (t) => `${t.bridge.url}/admin/dead-letters/1/retry`,
    headers: (_body, t) => ({ authorization: `Bearer ${t.bridge.adminToken}`, 'content-type': 'application/json' }),
  },
];
