/**
 * The transport layer: one POST route per source, each with its own raw-body parser so that the
 * source verifies the exact bytes received (no JSON parser runs in front of it). The order is
 * verify → parse → map → persist (dedupe and episode state in one transaction) → 2xx. Delivery
 * to the annotation service happens afterwards, from the outbox.
 */
import express, { type Request, type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import { secretVariable } from '../config.js';
import { mapEvent, type MappingConfig } from '../mapping/mapping.js';
import type { BridgeMetrics } from '../ops/metrics.js';
import { MalformedPayloadError, SOURCE_NAMES, type IncomingWebhook, type SourceName, type WebhookSource } from '../sources/types.js';
import { StoreUnavailableError, type BridgeStore, type PreparedEvent } from '../store/types.js';
import { reply } from './replies.js';

export interface WebhookRoutesDeps {
  sources: Partial<Record<SourceName, WebhookSource>>;
  secrets: Partial<Record<SourceName, readonly string[]>>;
  mapping: MappingConfig;
  store: BridgeStore;
  metrics: BridgeMetrics;
  logger: Logger;
  bodyLimitBytes: number;
  /** Called after events were recorded, so the outbox starts on them at once. */
  onRecorded: () => void;
  /** Longest wait for the store before answering 503, well inside the senders' 5–10 s deadlines. */
  recordTimeoutMs?: number;
  now: () => number;
}

export function createWebhookRoutes(deps: WebhookRoutesDeps): Router {
  const router = express.Router();
  // Any content type: some senders label JSON oddly, and a 415 could make them disable the hook.
  const rawBody = express.raw({ type: () => true, limit: deps.bodyLimitBytes });

  router.post('/webhooks/:source', sourceIsOn(deps), rawBody, handleDelivery(deps));
  router.all('/webhooks/:source', (req, res) => {
    reply(res, 405, `Method ${req.method} is not allowed on ${req.path}. Webhooks are delivered with POST.`, {}, { Allow: 'POST' });
  });
  return router;
}

function sourceName(req: Request): string {
  return String(req.params.source ?? '');
}

/** 404 before reading the body: an unknown source, or one that is off because it has no secret. */
function sourceIsOn(deps: WebhookRoutesDeps): RequestHandler {
  return (req, res, next) => {
    const name = sourceName(req);
    if (!(SOURCE_NAMES as readonly string[]).includes(name)) {
      reply(res, 404, `Unknown source ${JSON.stringify(name)}. Expected one of: ${SOURCE_NAMES.join(', ')}.`);
      return;
    }
    const source = name as SourceName;
    if (!deps.secrets[source]?.length) {
      deps.metrics.rejected.inc({ source, reason: 'off' });
      reply(res, 404, `The ${source} source is off: set ${secretVariable(source)} to turn it on.`);
      return;
    }
    if (!deps.sources[source]) {
      reply(res, 404, `The ${source} source is not available in this build of the bridge.`);
      return;
    }
    next();
  };
}

function handleDelivery(deps: WebhookRoutesDeps): RequestHandler {
  return async (req, res) => {
    const started = performance.now();
    const name = sourceName(req) as SourceName;
    const source = deps.sources[name] as WebhookSource;
    const secrets = deps.secrets[name] ?? [];
    const webhook: IncomingWebhook = {
      headers: lowerCaseHeaders(req),
      rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      receivedAt: deps.now(),
    };
    const log = deps.logger.child({ source: name });

    const verdict = await source.verify(webhook, secrets);
    if (!verdict.ok) {
      deps.metrics.rejected.inc({ source: name, reason: 'unauthorized' });
      log.warn({ reason: verdict.reason }, 'delivery refused: authenticity check failed');
      reply(res, 401, verdict.reason);
      return;
    }

    let parsed;
    try {
      parsed = source.parse(webhook);
    } catch (error) {
      if (error instanceof MalformedPayloadError) {
        deps.metrics.rejected.inc({ source: name, reason: 'malformed' });
        log.warn({ reason: error.message }, 'delivery refused: malformed body');
        reply(res, 400, error.message);
        return;
      }
      throw error;
    }
    if (parsed.kind === 'ignored') {
      deps.metrics.ignored.inc({ source: name });
      log.info({ reason: parsed.reason }, 'delivery ignored');
      reply(res, 200, parsed.reason, { status: 'ignored' });
      return;
    }

    const prepared: PreparedEvent[] = [];
    const skipped: string[] = [];
    for (const event of parsed.events) {
      const mapped = mapEvent(deps.mapping, event);
      if (mapped.kind === 'ignored') skipped.push(mapped.reason);
      else prepared.push({ event, target: mapped.target });
    }
    if (prepared.length === 0) {
      deps.metrics.ignored.inc({ source: name });
      reply(res, 200, skipped[0] ?? 'The delivery carried no events.', { status: 'ignored' });
      return;
    }

    let result;
    try {
      // A write that completes after the 503 is harmless: the sender's retry is then a duplicate.
      result = await withDeadline(deps.store.ingest(prepared, webhook.receivedAt), deps.recordTimeoutMs ?? 4_000);
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        log.error({ err: error }, 'cannot record a delivery; answering 503 so the sender retries');
        reply(res, 503, 'The bridge cannot record deliveries right now. Retry later.', {}, { 'Retry-After': '5' });
        return;
      }
      throw error;
    }
    deps.metrics.received.inc({ source: name }, result.accepted);
    if (result.duplicates > 0) deps.metrics.deduped.inc({ source: name }, result.duplicates);
    if (result.accepted > 0) deps.onRecorded();
    deps.metrics.ackLatency.observe((performance.now() - started) / 1000);
    log.info({ accepted: result.accepted, duplicates: result.duplicates, keys: prepared.map((item) => item.event.correlationKey) }, 'delivery recorded');
    const message = result.accepted > 0 ? 'Recorded; the annotation follows shortly.' : 'Already recorded: a redelivery changes nothing.';
    reply(res, result.accepted > 0 ? 202 : 200, message, { status: result.accepted > 0 ? 'accepted' : 'duplicate', ...result });
  };
}

function lowerCaseHeaders(req: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`The store did not record the delivery within ${ms} ms.`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
