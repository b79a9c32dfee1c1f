/**
 * The one error the client throws. It carries what a person needs to act on a failure:
 * the HTTP status (absent for network failures), the service's own message and its trace id.
 */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number | undefined;
  readonly serviceMessage: string | undefined;
  readonly traceId: string | undefined;
  readonly method: string;
  readonly path: string;
  readonly attempts: number;

  constructor(init: {
    method: string;
    path: string;
    status?: number;
    serviceMessage?: string;
    traceId?: string;
    attempts: number;
    cause?: unknown;
    reason?: string;
  }) {
    super(describe(init), init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ApiError';
    this.code = init.status === undefined ? 'network_error' : `http_${init.status}`;
    this.status = init.status;
    this.serviceMessage = init.serviceMessage;
    this.traceId = init.traceId;
    this.method = init.method;
    this.path = init.path;
    this.attempts = init.attempts;
  }
}

function describe(init: {
  method: string;
  path: string;
  status?: number;
  serviceMessage?: string;
  traceId?: string;
  attempts: number;
  reason?: string;
}): string {
  const what = `${init.method} ${init.path}`;
  const outcome =
    init.status === undefined
      ? `failed: ${init.reason ?? 'network error'}`
      : `answered ${init.status}${init.serviceMessage ? `: ${init.serviceMessage}` : ''}`;
  const tries = init.attempts > 1 ? ` (after ${init.attempts} attempts)` : '';
  const trace = init.traceId ? ` [trace id ${init.traceId}]` : '';
  return `${what} ${outcome}${tries}${trace}`;
}
