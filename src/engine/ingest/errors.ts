import { InputError, PayloadTooLargeError, TimemarkError, UnsupportedMediaTypeError } from '../../common/errors.js';

/**
 * Why a request body cannot be ingested at all (as opposed to single events that fail, which are
 * reported in the reply's `failures`): a 400 (unreadable), 413 (too large) or 415 (a type or
 * encoding this service does not read). Built from the shared error kinds, so the HTTP boundary
 * maps them like every other error.
 */
export type IngestErrorKind = 'invalid' | 'too_large' | 'unsupported';

export function ingestError(kind: IngestErrorKind, code: string, message: string): TimemarkError {
  if (kind === 'too_large') return new PayloadTooLargeError(message);
  if (kind === 'unsupported') return new UnsupportedMediaTypeError(message);
  return new InputError(message, { code });
}

/** What crosses from the decode worker when a body is refused: enough to rebuild the same error. */
export interface TransferredIngestError {
  readonly kind: IngestErrorKind;
  readonly code: string;
  readonly message: string;
}

export function transferIngestError(error: unknown): TransferredIngestError | undefined {
  if (error instanceof PayloadTooLargeError) return { kind: 'too_large', code: error.code, message: error.message };
  if (error instanceof UnsupportedMediaTypeError) return { kind: 'unsupported', code: error.code, message: error.message };
  if (error instanceof InputError) return { kind: 'invalid', code: error.code, message: error.message };
  return undefined;
}
