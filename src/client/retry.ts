/** Retry timing the service asks for (rate-limit hints), and an abortable sleep. The backoff itself is src/common/backoff.ts. */

/**
 * The delay a 429 or 503 asks for, from `Retry-After` (seconds or an HTTP date) or
 * `X-RateLimit-Reset` (epoch seconds). Undefined when neither header says anything usable.
 */
export function requestedDelay(headers: Record<string, string | string[] | undefined>, now: number = Date.now()): number | undefined {
  const retryAfter = firstHeader(headers['retry-after']);
  if (retryAfter !== undefined) {
    if (/^\d+(\.\d+)?$/.test(retryAfter.trim())) return Math.max(0, Number(retryAfter) * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = firstHeader(headers['x-ratelimit-reset']);
  if (reset !== undefined && /^\d+(\.\d+)?$/.test(reset.trim())) {
    return Math.max(0, Number(reset) * 1000 - now);
  }
  return undefined;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
