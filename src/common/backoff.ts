/** Retry timing shared by the client's retries and the bridge's outbox. */

export interface BackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * The wait before retry number `attempt + 1`: the step min(max, base·2^attempt), of which half
 * is fixed, so that a retry never comes straight back, and half is random ("equal jitter"), so
 * that clients failing together spread out.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
