import { readFileSync } from 'node:fs';
import type { Annotation } from '../../../src/common/annotation-contract.js';
import type { LocalService } from '../../helpers/local-service.js';

export function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../fixtures/dashboard/${name}`, import.meta.url), 'utf8')) as T;
}

async function post(service: LocalService, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(service.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as unknown;
}

/** Ingests events over the service's ingest API, as any client would. */
export async function ingest(service: LocalService, dataset: string, events: readonly object[]): Promise<void> {
  const reply = (await post(service, `/v1/datasets/${encodeURIComponent(dataset)}/ingest`, events)) as { ingested: number; failed: number };
  if (reply.ingested !== events.length || reply.failed !== 0) throw new Error(`Ingest into ${dataset} kept ${reply.ingested} of ${events.length} events.`);
}

export async function createAnnotation(service: LocalService, annotation: object): Promise<Annotation> {
  return (await post(service, '/v2/annotations', annotation)) as Annotation;
}
