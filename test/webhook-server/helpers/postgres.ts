import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The machine's PostgreSQL (trust auth in CI); override with TIMEMARK_TEST_DATABASE_URL. */
export const TEST_DATABASE_URL = process.env.TIMEMARK_TEST_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';

/** A fresh schema name per test file, so runs never see each other's rows. */
export function uniqueSchema(prefix = 'bridge_test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
