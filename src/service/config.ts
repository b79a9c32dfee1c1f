/**
 * The local service's configuration, from flags (already parsed by the command line) and the
 * environment. Read and validated once at start-up; every message names the flag or the
 * variable at fault and says what was expected. A flag wins over its variable.
 */
import { parseLogLevel, type LogLevel } from '../common/logger.js';
import { parsePort, readEnv, type PartConfig, type PartFlags } from '../common/settings.js';
import { assertTokenShapes } from './auth.js';

export interface ServiceConfig extends PartConfig {
  /** Empty: use the token saved in the data dir, creating it on first start. */
  tokens: readonly string[];
  orgId: string;
}

export interface ServiceFlags extends PartFlags {
  tokens?: readonly string[];
  orgId?: string;
}

export const SERVICE_DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  dataDir: '.timemark',
  orgId: 'local',
  logLevel: 'info',
} as const;

/** `defaults` replace the built-in defaults for a caller that runs the service itself (`timemark start`). */
export function loadServiceConfig(flags: ServiceFlags, env: NodeJS.ProcessEnv, defaults: { logLevel?: LogLevel } = {}): ServiceConfig {
  const portText = readEnv(env, 'TIMEMARK_PORT');
  const tokensText = readEnv(env, 'TIMEMARK_TOKENS');
  const logLevelText = readEnv(env, 'TIMEMARK_LOG_LEVEL');

  let tokens: readonly string[] = [];
  if (flags.tokens !== undefined && flags.tokens.length > 0) {
    assertTokenShapes(flags.tokens, '--token');
    tokens = flags.tokens;
  } else if (tokensText !== undefined) {
    tokens = tokensText
      .split(',')
      .map((token) => token.trim())
      .filter((token) => token !== '');
    assertTokenShapes(tokens, 'TIMEMARK_TOKENS');
  }

  return {
    port: flags.port ?? (portText === undefined ? SERVICE_DEFAULTS.port : parsePort('TIMEMARK_PORT', portText)),
    host: flags.host ?? readEnv(env, 'TIMEMARK_HOST') ?? SERVICE_DEFAULTS.host,
    dataDir: flags.dataDir ?? readEnv(env, 'TIMEMARK_DATA_DIR') ?? SERVICE_DEFAULTS.dataDir,
    dataDirOption: `${flags.dataDirFlag ?? '--data-dir'} / TIMEMARK_DATA_DIR`,
    tokens,
    orgId: flags.orgId ?? readEnv(env, 'TIMEMARK_ORG_ID') ?? SERVICE_DEFAULTS.orgId,
    logLevel: logLevelText === undefined ? (defaults.logLevel ?? SERVICE_DEFAULTS.logLevel) : parseLogLevel('TIMEMARK_LOG_LEVEL', logLevelText),
  };
}
