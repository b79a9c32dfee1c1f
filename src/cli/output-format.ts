/**
 * The --format option of the commands that print results: a table for people on a terminal,
 * JSON for programs otherwise, unless the command line says which.
 */
import type { CliIo } from './io.js';
import type { OptionSpec } from './options.js';
import { UsageError } from './usage-error.js';

export function formatOption(formats: readonly string[], help: string): OptionSpec {
  return { name: 'format', type: 'string', value: 'F', help, default: 'table on a terminal, json otherwise', example: formats.at(-1) ?? 'json' };
}

/** The --format given, or table when stdout is a terminal and json when it is not. */
export function outputFormat<T extends string>(value: string | undefined, formats: readonly T[], io: Pick<CliIo, 'stdoutColumns'>): T {
  if (value === undefined) return (io.stdoutColumns !== undefined ? 'table' : 'json') as T;
  if (!(formats as readonly string[]).includes(value)) {
    throw new UsageError(`Invalid --format ${JSON.stringify(value)}; give one of ${formats.join(', ')}, e.g. --format ${formats.at(-1) ?? 'json'}.`);
  }
  return value as T;
}
