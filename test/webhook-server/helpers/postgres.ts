import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** The PostgreSQL of this run, which the global setup found or started (test/setup/global.ts). */
export const TEST_DATABASE_URL = inject('databaseUrl');

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
