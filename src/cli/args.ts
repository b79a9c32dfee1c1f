import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs, with its errors turned into UsageErrors that name the command. */
export function parseCommandArgs<T extends Options>(command: string, args: string[], options: T, allowPositionals: number) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message.replace(/\. To specify a positional.*$/s, '.') : String(error);
    throw new UsageError(`${command}: ${message} Run "timemark ${command} --help" for the options.`);
  }
  if (parsed.positionals.length > allowPositionals) {
    throw new UsageError(
      `${command}: unexpected argument ${JSON.stringify(parsed.positionals[allowPositionals])}. Run "timemark ${command} --help" for the usage.`,
    );
  }
  return parsed;
}

/** The flag's value, else the environment variable's, else undefined. Empty strings count as unset. */
export function flagOrEnv(flag: string | undefined, env: NodeJS.ProcessEnv, name: string): string | undefined {
  if (flag !== undefined && flag !== '') return flag;
  const fromEnv = env[name];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

export function parsePort(flagName: string, value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65_535) {
    throw new UsageError(`Invalid ${flagName} ${JSON.stringify(value)}. Expected a port number from 0 to 65535 (0 picks a free port).`);
  }
  return port;
}

export function parsePositiveInteger(flagName: string, value: string, { allowZero = false } = {}): number {
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || (!allowZero && number === 0)) {
    throw new UsageError(`Invalid ${flagName} ${JSON.stringify(value)}. Expected a whole number${allowZero ? '' : ' above 0'}.`);
  }
  return number;
}
