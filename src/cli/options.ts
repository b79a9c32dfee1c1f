/**
 * Each command describes its options once, as data: the same description is parsed (with
 * node:util parseArgs) and printed by --help, so the help can never list an option the command
 * refuses, or miss one it takes. Mistakes in a command line become one sentence that says what
 * was wrong and what to do, and exit code 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error.js';

export interface OptionSpec {
  /** The long name, without dashes. */
  name: string;
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** The value's placeholder in the help: N, URL, TOKEN. */
  value?: string;
  /** The variable read when the flag is absent, shown in brackets. */
  env?: string;
  help: string;
  /** Shown in square brackets at the end of the help line. */
  default?: string | number;
  /** A value to suggest when the flag is given without one. */
  example?: string;
  /** A whole number: a value such as "-1" after it is a negative number, not another flag. */
  integer?: WholeNumber;
}

export interface WholeNumber {
  min: number;
  /** What it counts, for messages: "milliseconds". */
  unit?: string;
}

export interface CommandSpec {
  /** The words after `timemark`: "annotate create". */
  name: string;
  /** The rest of the usage line, e.g. "ID [options]". */
  usage: string;
  /** One or more sentences under the usage line. */
  summary: string;
  options: readonly OptionSpec[];
  /** How many positional arguments it takes. */
  positionals?: number;
  /** Text after the options: time formats, exit codes. */
  footer?: string;
}

export const HELP_OPTION: OptionSpec = { name: 'help', short: 'h', type: 'boolean', help: 'show this help' };

/** The values of one parsed command line, read by option name. */
export class ParsedOptions {
  constructor(
    private readonly values: Readonly<Record<string, string | boolean | Array<string | boolean> | undefined>>,
    readonly positionals: readonly string[],
  ) {}

  string(name: string): string | undefined {
    const value = this.values[name];
    return typeof value === 'string' ? value : undefined;
  }

  strings(name: string): string[] | undefined {
    const value = this.values[name];
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
  }

  boolean(name: string): boolean {
    return this.values[name] === true;
  }
}

export function renderHelp(command: CommandSpec): string {
  const lines = [`Usage: timemark ${command.name} ${command.usage}`.trimEnd(), '', command.summary];
  if (command.options.length > 0) {
    const withEnv = command.options.some((option) => option.env !== undefined);
    lines.push('', withEnv ? 'Options (environment variable in brackets):' : 'Options:');
    const flags = command.options.map(flagText);
    const width = Math.max(...flags.map((flag) => flag.length)) + 2;
    command.options.forEach((option, index) => {
      const env = option.env ? ` (${option.env})` : '';
      const fallback = option.default === undefined ? '' : ` [${option.default}]`;
      lines.push(`  ${(flags[index] ?? '').padEnd(width)}${option.help}${env}${fallback}`);
    });
  }
  if (command.footer) lines.push('', command.footer.trimEnd());
  return `${lines.join('\n')}\n`;
}

function flagText(option: OptionSpec): string {
  const long = `--${option.name}${option.type === 'string' ? ` ${option.value ?? 'VALUE'}` : ''}`;
  return option.short ? `-${option.short}, ${long}` : long;
}

/** Parses `args` as `command` takes them; every mistake is a UsageError naming the command. */
export function parseOptions(command: CommandSpec, args: readonly string[]): ParsedOptions {
  const normalised = checkValues(command, args);
  const config: NonNullable<ParseArgsConfig['options']> = {};
  for (const option of command.options) {
    config[option.name] = { type: option.type, ...(option.multiple ? { multiple: true } : {}), ...(option.short ? { short: option.short } : {}) };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: normalised, options: config, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(parseFailure(command, error));
  }
  const allowed = command.positionals ?? 0;
  if (parsed.positionals.length > allowed) {
    throw new UsageError(
      `unexpected argument ${JSON.stringify(parsed.positionals[allowed])}; ${allowed === 0 ? 'it takes none' : `it takes ${allowed}`}, see "timemark ${command.name} --help".`,
    );
  }
  return new ParsedOptions(parsed.values, parsed.positionals);
}

/**
 * Finds options given without their value before parseArgs does, because its own messages
 * ("argument is ambiguous") do not say what to do. A value that looks like a negative number
 * is taken as the value of a text option, and refused by name for a whole-number one.
 */
function checkValues(command: CommandSpec, args: readonly string[]): string[] {
  const result: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    result.push(arg);
    if (arg === '--') {
      result.push(...args.slice(index + 1));
      break;
    }
    const option = optionNamed(command, arg);
    if (option?.type !== 'string') continue;
    const next = args[index + 1];
    const flag = `--${option.name}`;
    const example = `${flag} ${option.example ?? option.value ?? 'VALUE'}`;
    if (next === undefined) throw new UsageError(`${flag} needs a value; give one, e.g. ${example}.`);
    if (/^-\d/.test(next)) {
      if (option.integer) parseWholeNumber(flag, next, { ...option.integer, example: option.example ?? String(option.integer.min) });
      result[result.length - 1] = `${flag}=${next}`;
      index++;
    } else if (next.startsWith('-') && next !== '-') {
      throw new UsageError(`${flag} needs a value, but ${next} follows it; give one, e.g. ${example} (a value that starts with a dash is written ${flag}=-…).`);
    }
  }
  return result;
}

function optionNamed(command: CommandSpec, arg: string): OptionSpec | undefined {
  const long = /^--([^=]+)$/.exec(arg)?.[1];
  if (long !== undefined) return command.options.find((option) => option.name === long);
  const short = /^-([A-Za-z])$/.exec(arg)?.[1];
  return short === undefined ? undefined : command.options.find((option) => option.short === short);
}

function parseFailure(command: CommandSpec, error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const named = /'(-{1,2}[^' ]+)/.exec(message)?.[1] ?? '';
  const help = `see "timemark ${command.name} --help"`;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${named}; ${help} for the options it takes.`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `${named} takes no value; write ${named} alone.`;
  return `${message.split('\n')[0]}; ${help}.`;
}

/**
 * A whole number from a flag or variable. Negative numbers are named as such, since a minus
 * sign is the likeliest slip.
 */
export function parseWholeNumber(label: string, text: string, options: WholeNumber & { example: string }): number {
  const trimmed = text.trim();
  const expected = `a whole number${options.unit ? ` of ${options.unit}` : ''} of ${options.min} or more, e.g. ${label} ${options.example}`;
  if (/^-\d+$/.test(trimmed)) throw new UsageError(`Invalid ${label} ${JSON.stringify(text)}: it is negative; give ${expected}.`);
  const value = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!(value >= options.min) || !Number.isSafeInteger(value)) throw new UsageError(`Invalid ${label} ${JSON.stringify(text)}; give ${expected}.`);
  return value;
}
