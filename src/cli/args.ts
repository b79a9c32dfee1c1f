import { parsePort, readEnv, type PartFlags } from '../common/settings.js';
import type { ParsedOptions } from './options.js';

/** The flag's value, else the environment variable's, else undefined. Empty strings count as unset. */
export function flagOrEnv(flag: string | undefined, env: NodeJS.ProcessEnv, name: string): string | undefined {
  if (flag !== undefined && flag !== '') return flag;
  return readEnv(env, name);
}

/** The option names a command gives a part's flags (`timemark start` has `--bridge-port` for the bridge's port). */
export interface PartFlagNames {
  readonly port: string;
  readonly host?: string;
  readonly dataDir: string;
}

/**
 * The flags of a long-running part (serve, bridge, and each half of start) as its config loader
 * takes them. Absent and empty flags are left out, so that the environment and the defaults
 * apply; a data dir under another name than `--data-dir` is named so in data-dir errors.
 */
export function readPartFlags(options: ParsedOptions, names: PartFlagNames = { port: 'port', host: 'host', dataDir: 'data-dir' }): PartFlags {
  const given = (name: string | undefined): string | undefined => (name === undefined ? undefined : options.string(name) || undefined);
  const port = given(names.port);
  const host = given(names.host);
  const dataDir = given(names.dataDir);
  return {
    ...(port ? { port: parsePort(`--${names.port}`, port) } : {}),
    ...(host ? { host } : {}),
    ...(dataDir ? { dataDir } : {}),
    ...(names.dataDir === 'data-dir' ? {} : { dataDirFlag: `--${names.dataDir}` }),
  };
}
