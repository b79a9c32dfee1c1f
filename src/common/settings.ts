/** Reading settings from flags and environment variables, the same way for every command. */
import { InputError } from './errors.js';
import type { LogLevel } from './logger.js';

/** What every long-running part (the service, the bridge) is configured with. */
export interface PartConfig {
  port: number;
  host: string;
  dataDir: string;
  /** How the user sets the data dir, for messages about it, e.g. `--data-dir / TIMEMARK_DATA_DIR`. */
  dataDirOption: string;
  logLevel: LogLevel;
}

/** The flags every long-running part takes, already parsed by the command line; each wins over its variable. */
export interface PartFlags {
  port?: number;
  host?: string;
  dataDir?: string;
  /** The flag that set dataDir, when it is not `--data-dir` (`timemark start` has two data dirs). */
  dataDirFlag?: string;
}

/** A variable's value, trimmed; unset and empty both count as not set. */
export function readEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** Reads a port; `label` names the flag or variable it came from. */
export function parsePort(label: string, text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text.trim()) || port > 65_535) {
    throw new InputError(`Invalid ${label} ${JSON.stringify(text)}. Expected a port number from 0 to 65535 (0 picks a free one).`);
  }
  return port;
}
