/**
 * The contract between the bridge's core and each event source.
 *
 * A source knows one sender: how it proves authenticity (verify) and what its payloads mean
 * (parse). It turns a delivery into zero or more BridgeEvents: "this rollout / alert episode
 * started" or "… finished with this outcome". The core does the rest — dedupe, persistence,
 * correlation of start and finish, mapping to datasets, delivery to the annotation service —
 * the same way for every source.
 */

import type { Outcome as FactsOutcome } from '../../../src/common/annotation-facts.js';
import { AuthenticationError, InputError } from '../../../src/common/errors.js';

export const SOURCE_NAMES = ['github', 'gitlab', 'vercel', 'argocd', 'flux', 'monitor', 'alertmanager', 'grafana', 'pagerduty'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

export interface IncomingWebhook {
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Readonly<Record<string, string | undefined>>;
  /** The exact bytes received: signatures are computed over these, never over re-serialised JSON. */
  rawBody: Buffer;
  /** When the bridge received it (epoch ms). */
  receivedAt: number;
}

/** `reason` is shown to the sender in the 401 body and logged: it never contains a secret or a signature. */
export type VerifyResult = { ok: true } | { ok: false; reason: string };

export type Phase = 'start' | 'finish';
/**
 * How a sender says a rollout or an alert episode finished: the facts line's vocabulary
 * (src/common/annotation-facts.ts) but `timed-out`, which only the bridge itself decides.
 * `unknown`: the sender says it finished but gives no verdict (a GitHub run completed with a null conclusion).
 */
export type Outcome = Exclude<FactsOutcome, 'timed-out'>;
export type EventCategory = 'deploy' | 'incident';

export interface BridgeEvent {
  source: SourceName;
  /** Identical for redeliveries of the same event, different for different events (see webhook-sources.md). */
  dedupeKey: string;
  /**
   * Identical for the start and the finish of one rollout or alert episode, e.g.
   * `github:org/repo:deployment:123`. Includes the episode discriminator when the sender has one
   * (Alertmanager's startsAt); when it has none (monitor ids), the core tells episodes apart by time.
   */
  correlationKey: string;
  phase: Phase;
  /** Set when phase is 'finish'. */
  outcome?: Outcome;
  /** When the sender says the event happened (epoch ms), parsed from the sender's own time format. */
  occurredAt: number;
  /** The best known start of the span, when a finish carries it (e.g. Argo CD startedAt, Alertmanager startsAt). */
  startedAt?: number;
  /** When the deployed commit was made (epoch ms), where the payload says (a GitHub workflow run's head commit). */
  committedAt?: number;
  category: EventCategory;
  /** A default title; the mapping configuration may replace it with a template over `context`. */
  title: string;
  description?: string;
  /** The most useful link for a person looking at the chart. */
  url?: string;
  /**
   * Facts the mapping configuration matches on and templates use, as flat strings: e.g.
   * repository, environment, ref, sha, app, namespace, monitor, alertname, severity, service,
   * and every alert label as `labels.<name>`.
   */
  context: Readonly<Record<string, string>>;
}

export type ParseResult =
  | { kind: 'events'; events: BridgeEvent[] }
  /** Valid but nothing to do (pings, unknown event types, states that change nothing): answered 2xx. */
  | { kind: 'ignored'; reason: string };

/** The body is not what this sender sends (bad JSON, missing required fields): answered 400. */
export class MalformedPayloadError extends InputError {
  constructor(message: string) {
    super(message, { code: 'malformed_payload' });
  }
}

/** The delivery's signature or token matches no configured secret: answered 401. */
export class SignatureError extends AuthenticationError {
  constructor(message: string) {
    super(message, { code: 'invalid_signature' });
  }
}

export interface WebhookSource {
  readonly name: SourceName;
  /** Checks authenticity against every configured secret (rotation), in constant time. */
  verify(webhook: IncomingWebhook, secrets: readonly string[]): Promise<VerifyResult>;
  /** Called only after verify succeeded. Throws MalformedPayloadError for bodies it cannot read. */
  parse(webhook: IncomingWebhook): ParseResult;
}
