/**
 * Loads recorded webhook payloads from test/fixtures/webhooks/<source>/<case>.json and the
 * headers the sender sends with them (headers.json in the same folder, keyed by case name).
 * Fixtures are the payload bytes; signatures are computed at test time with a test secret.
 */

import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { IncomingWebhook } from '../../../webhook-server/src/sources/types.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/webhooks/', import.meta.url));

/** Received at this instant unless a test says otherwise: after every fixture's own times. */
export const RECEIVED_AT = Date.parse('2024-07-01T00:00:00Z');

export function fixtureBody(source: string, name: string): Buffer {
  return readFileSync(`${FIXTURES}${source}/${name}.json`);
}

export function fixtureJson(source: string, name: string): Record<string, any> {
  return JSON.parse(fixtureBody(source, name).toString('utf8')) as Record<string, any>;
}

export function fixtureHeaders(source: string, name: string): Record<string, string> {
  const all = JSON.parse(readFileSync(`${FIXTURES}${source}/headers.json`, 'utf8')) as Record<
    string,
    Record<string, string>
  >;
  return { 'content-type': 'application/json', ...(all[name] ?? {}) };
}

export function webhook(rawBody: Buffer | string, headers: Record<string, string | undefined> = {}): IncomingWebhook {
  return {
    headers,
    rawBody: typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody,
    receivedAt: RECEIVED_AT,
  };
}

/** A fixture as the sender delivers it, with its recorded headers plus `extra` (e.g. a signature). */
export function fixtureWebhook(source: string, name: string, extra: Record<string, string | undefined> = {}) {
  return webhook(fixtureBody(source, name), { ...fixtureHeaders(source, name), ...extra });
}

/** The body as JSON after `change`, for "missing field" cases; re-serialised, so sign it afterwards. */
export function modifiedBody(source: string, name: string, change: (body: Record<string, any>) => void): Buffer {
  const body = fixtureJson(source, name);
  change(body);
  return Buffer.from(JSON.stringify(body), 'utf8');
}

export function hmacHex(algorithm: 'sha1' | 'sha256', secret: string, body: Buffer | string): string {
  return createHmac(algorithm, secret).update(body).digest('hex');
}
