import { randomBytes } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** `prefix` and `length` lowercase base-32 characters (5 random bits each): safe in paths, URLs and shells. */
export function randomId(prefix: string, length: number): string {
  let id = prefix;
  for (const byte of randomBytes(length)) id += BASE32[byte & 31];
  return id;
}
