import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { SecretFileError } from './errors.js';

export interface SecretFileOptions {
  bytes?: number;
  prefix?: string;
  /** What is wrong with a secret read back from the file (a sentence), or undefined when it is usable. */
  problem?: (secret: string) => string | undefined;
  /** Names the secret in messages: "service token", "admin token". */
  what: string;
}

/**
 * Reads a generated secret kept in `file`, or generates one (`prefix` + `bytes` random bytes,
 * base64url) and writes it readable by the owner only, so that restarts keep the same secret.
 * A file that is empty or holds something unusable is refused rather than trusted: a process
 * that started with it would accept no credentials at all, silently.
 */
export function loadOrCreateSecret(file: string, options: SecretFileOptions): string {
  const remedy = `Delete ${file} to have a new ${options.what} generated, or put a valid one in it.`;
  if (existsSync(file)) {
    let secret: string;
    try {
      secret = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new SecretFileError(`Cannot read the ${options.what} in ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}). Expected a file this user can read.`, { cause: error });
    }
    if (secret === '') throw new SecretFileError(`The ${options.what} file ${file} is empty. ${remedy}`);
    const problem = options.problem?.(secret);
    if (problem !== undefined) throw new SecretFileError(`The ${options.what} in ${file} ${problem}. ${remedy}`);
    return secret;
  }
  const secret = `${options.prefix ?? ''}${randomBytes(options.bytes ?? 24).toString('base64url')}`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
