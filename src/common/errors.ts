/**
 * The errors Timemark throws on purpose. Each has a stable `code` for programs and logs, and a
 * message that is a sentence quoting the offending value and saying what was expected.
 *
 * The kind of an error (its class) decides what a boundary makes of it: the HTTP boundary maps
 * classes to statuses in one table (`src/common/http/error-reply.ts`), the command line maps
 * them to exit codes in `src/cli/main.ts`. Layers below the boundaries only throw.
 */

export interface TimemarkErrorOptions {
  cause?: unknown;
  /** Members of the JSON error reply besides `code` and `message`, e.g. an APL error's `detail`. */
  replyMembers?: Readonly<Record<string, unknown>>;
  /** Headers of the error reply, e.g. `Allow` or `Retry-After`. */
  replyHeaders?: Readonly<Record<string, string>>;
}

export class TimemarkError extends Error {
  readonly replyMembers: Readonly<Record<string, unknown>>;
  readonly replyHeaders: Readonly<Record<string, string>>;

  constructor(
    readonly code: string,
    message: string,
    options: TimemarkErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.replyMembers = options.replyMembers ?? {};
    this.replyHeaders = options.replyHeaders ?? {};
  }
}

/**
 * A value given by a person or a client (a flag, an action input, an environment variable, a
 * request body) that is not of the expected form. HTTP 400; exit code 2.
 */
export class InputError extends TimemarkError {
  constructor(message: string, options: TimemarkErrorOptions & { code?: string } = {}) {
    super(options.code ?? 'invalid_input', message, options);
  }
}

/** A configuration (environment, config file, flags) that cannot work. Exit code 2. */
export class ConfigError extends InputError {
  constructor(message: string, options: TimemarkErrorOptions = {}) {
    super(message, { ...options, code: 'invalid_config' });
  }
}

/** No credentials, or credentials (a token, a signature) that match nothing. HTTP 401. */
export class AuthenticationError extends TimemarkError {
  constructor(message: string, options: { code?: string; challenge?: string } = {}) {
    super(options.code ?? 'unauthenticated', message, options.challenge === undefined ? {} : { replyHeaders: { 'WWW-Authenticate': options.challenge } });
  }
}

/** Known credentials that may not do this. HTTP 403. */
export class PermissionError extends TimemarkError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

/** HTTP 404. The message contains "not found", as the wire requires. */
export class NotFoundError extends TimemarkError {
  constructor(message: string) {
    super('not_found', message);
  }
}

/** The path exists, but not with this method. HTTP 405 with `Allow`. */
export class MethodNotAllowedError extends TimemarkError {
  constructor(method: string, path: string, allowed: readonly string[]) {
    super('method_not_allowed', `Method ${method} is not allowed on ${path}. Expected one of: ${allowed.join(', ')}.`, {
      replyHeaders: { Allow: allowed.join(', ') },
    });
  }
}

/** HTTP 409. */
export class ConflictError extends TimemarkError {
  constructor(message: string) {
    super('already_exists', message);
  }
}

/** HTTP 413. */
export class PayloadTooLargeError extends TimemarkError {
  constructor(message: string) {
    super('body_too_large', message);
  }
}

/** A body of a type or encoding the route does not read. HTTP 415. */
export class UnsupportedMediaTypeError extends TimemarkError {
  constructor(message: string) {
    super('unsupported_media_type', message);
  }
}

/**
 * A dependency (a store, a database) cannot serve right now; the caller should retry. HTTP 503
 * with `Retry-After`. The message is for the log: the reply says only that the caller should retry.
 */
export class UnavailableError extends TimemarkError {
  constructor(message: string, options: { code?: string; cause?: unknown; retryAfterSeconds?: number } = {}) {
    super(options.code ?? 'unavailable', message, {
      cause: options.cause,
      replyHeaders: { 'Retry-After': String(options.retryAfterSeconds ?? 5) },
    });
  }
}

/**
 * The disk holding the data dir is full: nothing was written, and the same request succeeds once
 * space is freed. HTTP 507 Insufficient Storage. The message is the reply: it names the cause
 * and the setting to change, which an operator needs and which leaks nothing.
 */
export class InsufficientStorageError extends TimemarkError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('disk_full', message, options);
  }
}

/** The data dir cannot be used (not creatable, not writable, a file in the way, a pseudo file system). Exit code 1. */
export class DataDirError extends TimemarkError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('data_dir_unusable', message, options);
  }
}

/** The address to listen on is taken. Exit code 1. */
export class PortInUseError extends TimemarkError {
  constructor(message: string) {
    super('port_in_use', message);
  }
}

/** A file that should hold a generated secret (a token) is empty, malformed or unreadable. Exit code 1. */
export class SecretFileError extends TimemarkError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('invalid_secret_file', message, options);
  }
}
