import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Reads a generated secret kept in `file`, or generates one (`prefix` + `bytes` random bytes,
 * base64url) and writes it readable by the owner only, so that restarts keep the same secret.
 */
export function loadOrCreateSecret(file: string, options: { bytes?: number; prefix?: string } = {}): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = `${options.prefix ?? ''}${randomBytes(options.bytes ?? 24).toString('base64url')}`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
