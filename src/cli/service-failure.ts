/**
 * What the command line says when a request to the service failed: one sentence that says what
 * went wrong and what to do, for the failures a person can act on. The client's ApiError says
 * what happened; only the command line knows the URL it was given and the flags that change it.
 */
import type { ApiError } from '../client/api-error.js';
import { TimemarkError } from '../common/errors.js';
import { redactUrl } from '../common/redact-url.js';

/** A request the service or the network failed: exit code 1. */
export class ServiceFailureError extends TimemarkError {
  constructor(message: string, cause: ApiError) {
    super(cause.code, message, { cause });
  }
}

export interface FailureContext {
  /** The service root the command used, as given (its userinfo is removed before it is shown). */
  url: string;
  /** How to run this CLI again, for suggested commands: `timemark`, `./bin/timemark.js`. */
  self: string;
  /** What an ambiguous failure (the request may have taken effect) means for this command, and what to do. */
  ambiguous?: (self: string) => string;
}

/** The annotation commands' advice, the default: a create is the one call not retried when ambiguous. */
const ANNOTATION_AMBIGUITY = (self: string): string =>
  `so the annotation may or may not exist, and it was not sent again because that could create it twice; check with "${self} annotate list", or pass --retry-ambiguous to retry such failures`;

export function describeServiceFailure(error: ApiError, context: FailureContext): string {
  const url = redactUrl(context.url);
  switch (error.networkCode) {
    case 'ECONNREFUSED':
      return `nothing answers at ${url} (connection refused): is the service running? Start one with "${context.self} serve", or point --url (TIMEMARK_URL) at yours.`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${url} cannot be found (${error.networkCode}); check --url (TIMEMARK_URL).`;
  }
  if (error.ambiguous) {
    return `${error.message}, ${(context.ambiguous ?? ANNOTATION_AMBIGUITY)(context.self)}.`;
  }
  return /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
}
