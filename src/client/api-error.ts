import { TimemarkError } from '../common/errors.js';

export interface ApiErrorInit {
  method: string;
  path: string;
  /** Absent when no complete reply arrived (the connection failed, dropped or timed out). */
  status?: number;
  serviceMessage?: string;
  traceId?: string;
  attempts: number;
  cause?: unknown;
  /** What went wrong when there is no status to tell it. */
  reason?: string;
  /** The system's code for a failed connection (ECONNREFUSED, ENOTFOUND, ECONNRESET…). */
  networkCode?: string;
  /** The service may have acted on the request, and it was not sent again because doing it twice could duplicate it. */
  ambiguous?: boolean;
  /** The `detail` member of an error reply: an APL error's `{line, column, message}`. */
  detail?: unknown;
}

/**
 * The one error the client throws for a request that failed. It carries what a person needs to
 * act on it: the method and path, the HTTP status (absent for network failures), the service's
 * own message and its trace id. Never the token, never the service's address.
 */
export class ApiError extends TimemarkError {
  readonly status: number | undefined;
  readonly serviceMessage: string | undefined;
  readonly traceId: string | undefined;
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  readonly networkCode: string | undefined;
  readonly ambiguous: boolean;
  readonly detail: unknown;

  constructor(init: ApiErrorInit) {
    super(init.status === undefined ? 'network_error' : `http_${init.status}`, describe(init), { cause: init.cause });
    this.status = init.status;
    this.serviceMessage = init.serviceMessage;
    this.traceId = init.traceId;
    this.method = init.method;
    this.path = init.path;
    this.attempts = init.attempts;
    this.networkCode = init.networkCode;
    this.ambiguous = init.ambiguous ?? false;
    this.detail = init.detail;
  }
}

function describe(init: ApiErrorInit): string {
  const outcome =
    init.status === undefined
      ? `failed: ${init.reason ?? 'network error'}`
      : `answered ${init.status}${init.serviceMessage ? `: ${init.serviceMessage}` : ''}`;
  const tries = init.attempts > 1 ? ` (after ${init.attempts} attempts)` : '';
  const trace = init.traceId ? ` [trace id ${init.traceId}]` : '';
  return `${init.method} ${init.path} ${outcome}${tries}${trace}`;
}
