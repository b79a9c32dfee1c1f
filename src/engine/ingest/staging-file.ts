import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

/** A fresh file name in the store's staging directory for one batch. */
export function stagingFile(stagingDir: string): string {
  return join(stagingDir, `${randomUUID()}.ndjson`);
}
