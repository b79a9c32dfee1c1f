import { pino, type DestinationStream, type Logger } from 'pino';
import { ConfigError } from './errors.js';
import { redactUrlsIn } from './redact-url.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Reads a log level from a flag or a variable named `label`. */
export function parseLogLevel(label: string, text: string): LogLevel {
  const level = LOG_LEVELS.find((candidate) => candidate === text.trim().toLowerCase());
  if (level === undefined) throw new ConfigError(`Invalid ${label} ${JSON.stringify(text)}. Expected one of: ${LOG_LEVELS.join(', ')}.`);
  return level;
}

/**
 * JSON log lines (pino), the same for the service and the bridge. Neither logs headers, bodies or
 * URLs with credentials, but anything shaped like a credential is redacted anyway, in case an
 * error object carries one.
 */
export function createLogger(options: { name: string; level?: LogLevel; destination?: DestinationStream }): Logger {
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      // The last line of defence: a library's error may quote a URL it was given, password included.
      hooks: { streamWrite: redactUrlsIn },
      redact: {
        paths: [
          'headers.authorization',
          'headers["x-gitlab-token"]',
          'headers["x-hub-signature-256"]',
          'headers["x-vercel-signature"]',
          'headers["x-signature"]',
          'headers["x-pagerduty-signature"]',
          'headers["x-grafana-alerting-signature"]',
          'token',
          'tokens',
          'secret',
          'secrets',
          'adminToken',
          'databaseUrl',
        ],
        censor: '[redacted]',
      },
    },
    options.destination,
  );
}
