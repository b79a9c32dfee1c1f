/**
 * The transport layer: one POST route per source, each with its own raw-body parser so that the
 * source verifies the exact bytes received (no JSON parser runs in front of it). The order is
 * verify → parse → map → persist (dedupe and episode state in one transaction) → 2xx. Delivery
 * to the annotation service happens afterwards, from the outbox.
 *
 * Each step throws a typed error (SignatureError 401, MalformedPayloadError 400,
 * StoreUnavailableError 503); noteRefusal counts and logs it, and the app's error handler answers.
 */
import express, { type Request, type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import { NotFoundError } from '../../../src/common/errors.js';
import { withDeadline } from '../../../src/common/deadline.js';
import { methodNotAllowed, replyJson } from '../../../src/common/http/error-reply.js';
import { secretVariable } from '../config.js';
import { mapEvent, type MappingConfig } from '../mapping/mapping.js';
import type { BridgeMetrics } from '../ops/metrics.js';
import { MalformedPayloadError, SignatureError, SOURCE_NAMES, type IncomingWebhook, type SourceName, type WebhookSource } from '../sources/types.js';
import { StoreUnavailableError, type BridgeStore, type PreparedEvent } from '../store/types.js';

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

  router.route('/webhooks/:source').post(sourceIsOn(deps), rawBody, handleDelivery(deps)).all(methodNotAllowed(['POST']));
  return router;
}

function sourceName(req: Request): string {
  return String(req.params.source ?? '');
}

/** 404 before reading the body: an unknown source, or one that is off because it has no secret. */
function sourceIsOn(deps: WebhookRoutesDeps): RequestHandler {
  return (req, _res, next) => {
    const name = sourceName(req);
    if (!(SOURCE_NAMES as readonly string[]).includes(name)) {
      throw new NotFoundError(`Unknown source ${JSON.stringify(name)}. Expected one of: ${SOURCE_NAMES.join(', ')}.`);
    }
    const source = name as SourceName;
    if (!deps.secrets[source]?.length) {
      deps.metrics.rejected.inc({ source, reason: 'off' });
      throw new NotFoundError(`The ${source} source is off: set ${secretVariable(source)} to turn it on.`);
    }
    if (!deps.sources[source]) throw new NotFoundError(`The ${source} source is not available in this build of the bridge.`);
    next();
  };
}

function handleDelivery(deps: WebhookRoutesDeps): RequestHandler {
  // One child logger per source, made once: a child per request costs a serialisation of its bindings.
  const loggers = new Map<SourceName, Logger>();
  return async (req, res) => {
    const started = performance.now();
    const name = sourceName(req) as SourceName;
    let log = loggers.get(name);
    if (!log) {
      log = deps.logger.child({ source: name });
      loggers.set(name, log);
    }
    try {
      await deliver(deps, req, res, name, log, started);
    } catch (error) {
      noteRefusal(deps, name, log, error);
      throw error;
    }
  };
}

async function deliver(deps: WebhookRoutesDeps, req: Request, res: express.Response, name: SourceName, log: Logger, started: number): Promise<void> {
  const source = deps.sources[name] as WebhookSource;
  const webhook: IncomingWebhook = {
    headers: lowerCaseHeaders(req),
    rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    receivedAt: deps.now(),
  };

  const verdict = await source.verify(webhook, deps.secrets[name] ?? []);
  if (!verdict.ok) throw new SignatureError(verdict.reason);

  const parsed = source.parse(webhook);
  if (parsed.kind === 'ignored') {
    deps.metrics.ignored.inc({ source: name });
    log.info({ reason: parsed.reason }, 'delivery ignored');
    replyJson(res, 200, parsed.reason, { status: 'ignored' });
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
    replyJson(res, 200, skipped[0] ?? 'The delivery carried no events.', { status: 'ignored' });
    return;
  }

  const timeoutMs = deps.recordTimeoutMs ?? 4_000;
  // A write that completes after the 503 is harmless: the sender's retry is then a duplicate.
  const result = await withDeadline(
    deps.store.ingest(prepared, webhook.receivedAt),
    timeoutMs,
    () => new StoreUnavailableError(`The store did not record the delivery within ${timeoutMs} ms.`),
  );
  deps.metrics.received.inc({ source: name }, result.accepted);
  if (result.duplicates > 0) deps.metrics.deduped.inc({ source: name }, result.duplicates);
  if (result.accepted > 0) deps.onRecorded();
  deps.metrics.ackLatency.observe((performance.now() - started) / 1000);
  if (log.isLevelEnabled('info')) {
    log.info({ accepted: result.accepted, duplicates: result.duplicates, keys: prepared.map((item) => item.event.correlationKey) }, 'delivery recorded');
  }
  const message = result.accepted > 0 ? 'Recorded; the annotation follows shortly.' : 'Already recorded: a redelivery changes nothing.';
  replyJson(res, result.accepted > 0 ? 202 : 200, message, { status: result.accepted > 0 ? 'accepted' : 'duplicate', ...result });
}

/** The one place where a refused delivery is counted and logged; the error handler answers it. */
function noteRefusal(deps: WebhookRoutesDeps, source: SourceName, log: Logger, error: unknown): void {
  if (error instanceof SignatureError) {
    deps.metrics.rejected.inc({ source, reason: 'unauthorized' });
    log.warn({ reason: error.message }, 'delivery refused: authenticity check failed');
  } else if (error instanceof MalformedPayloadError) {
    deps.metrics.rejected.inc({ source, reason: 'malformed' });
    log.warn({ reason: error.message }, 'delivery refused: malformed body');
  } else if (error instanceof StoreUnavailableError) {
    // The error handler logs it, with the stack, as it does every 5xx.
    deps.metrics.rejected.inc({ source, reason: 'store_unavailable' });
  }
}

/** Node names `req.headers` in lower case already; only a repeated header (an array) needs joining. */
function lowerCaseHeaders(req: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const key in req.headers) {
    const value = req.headers[key];
    if (value === undefined) continue;
    headers[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
