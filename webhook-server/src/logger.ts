import { pino, type Logger, type DestinationStream } from 'pino';

/**
 * JSON logs. The bridge never logs headers or bodies, but anything shaped like a credential is
 * redacted anyway, in case an error object carries one.
 */
export function createBridgeLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  return pino(
    {
      name: 'timemark-bridge',
      level: options.level ?? 'info',
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
