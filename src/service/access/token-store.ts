import { randomBytes, randomUUID } from 'node:crypto';
import { formatTime } from '../../common/time.js';
import { matchDigest, tokenDigest } from '../../common/token-matcher.js';
import type { ServiceDatabase } from '../database.js';
import { API_TOKEN_PREFIX } from '../auth.js';
import type { Capabilities } from './capabilities.js';

/** An API token as the API shows it: everything but its value. */
export interface ApiToken {
  id: string;
  name: string;
  description: string;
  expiresAt?: string;
  datasetCapabilities: Capabilities['datasets'];
  orgCapabilities: Capabilities['org'];
  samlAuthenticated: false;
}

export interface TokenSpec {
  name: string;
  description: string;
  /** Undefined: never expires. */
  expiresMs: number | undefined;
  capabilities: Capabilities;
}

/** A stored token found by its value. */
export interface StoredToken {
  readonly id: string;
  readonly expiresMs: number | undefined;
  readonly capabilities: Capabilities;
}

export interface TokenStore {
  list(): ApiToken[];
  get(id: string): ApiToken | undefined;
  /** The token of that value, or undefined; compared in constant time (see matchDigest). */
  find(value: string): StoredToken | undefined;
  /** Stores a new token and returns it with its value, which is shown this once and never kept. */
  create(spec: TokenSpec, nowMs: number): ApiToken & { token: string };
  /** The token's spec, to regenerate it from. */
  spec(id: string): TokenSpec | undefined;
  /**
   * Sets the expiry of `id` and creates its replacement in one transaction; undefined when
   * there is no such token.
   */
  regenerate(id: string, existingExpiresMs: number, replacement: TokenSpec, nowMs: number): (ApiToken & { token: string }) | undefined;
  delete(id: string): boolean;
}

interface TokenRow {
  id: string;
  name: string;
  description: string;
  digest: Buffer;
  expires_ms: number | null;
  dataset_capabilities: string;
  org_capabilities: string;
}

const COLUMNS = 'id, name, description, digest, expires_ms, dataset_capabilities, org_capabilities';

/** A new token's value: the API token prefix and 32 random bytes. */
function newTokenValue(): string {
  return `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * API tokens in the service's SQLite file. Every row is also held in memory, so that
 * authenticating a request reads no file: this process is the only writer, and the copy is
 * changed only after a commit.
 */
export function createTokenStore(db: ServiceDatabase): TokenStore {
  const insert = db.prepare(
    `INSERT INTO api_tokens (id, name, description, digest, expires_ms, dataset_capabilities, org_capabilities, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const setExpiry = db.prepare<[number, string]>('UPDATE api_tokens SET expires_ms = ? WHERE id = ?');
  const remove = db.prepare<[string]>('DELETE FROM api_tokens WHERE id = ?');
  const rows = new Map<string, TokenRow>();
  for (const row of db.prepare<[], TokenRow>(`SELECT ${COLUMNS} FROM api_tokens ORDER BY created_ms, id`).all()) rows.set(row.id, row);
  let digests: { ids: string[]; digests: Buffer[] } | undefined;
  const index = (): { ids: string[]; digests: Buffer[] } => {
    digests ??= { ids: [...rows.keys()], digests: [...rows.values()].map((row) => row.digest) };
    return digests;
  };

  const insertRow = (spec: TokenSpec, nowMs: number): { row: TokenRow; value: string } => {
    const value = newTokenValue();
    const row: TokenRow = {
      id: randomUUID(),
      name: spec.name,
      description: spec.description,
      digest: tokenDigest(value),
      expires_ms: spec.expiresMs ?? null,
      dataset_capabilities: JSON.stringify(spec.capabilities.datasets),
      org_capabilities: JSON.stringify(spec.capabilities.org),
    };
    insert.run(row.id, row.name, row.description, row.digest, row.expires_ms, row.dataset_capabilities, row.org_capabilities, nowMs);
    return { row, value };
  };
  const regenerateRows = db.transaction((id: string, existingExpiresMs: number, replacement: TokenSpec, nowMs: number) => {
    if (setExpiry.run(existingExpiresMs, id).changes === 0) return undefined;
    return insertRow(replacement, nowMs);
  });

  return {
    list: () => [...rows.values()].map(toApiToken),
    get: (id) => {
      const row = rows.get(id);
      return row && toApiToken(row);
    },
    find: (value) => {
      const { ids, digests: all } = index();
      const found = matchDigest(all, value);
      const row = found === -1 ? undefined : rows.get(ids[found] as string);
      return row && { id: row.id, expiresMs: row.expires_ms ?? undefined, capabilities: capabilitiesOf(row) };
    },
    create: (spec, nowMs) => {
      const { row, value } = insertRow(spec, nowMs);
      rows.set(row.id, row);
      digests = undefined;
      return { ...toApiToken(row), token: value };
    },
    spec: (id) => {
      const row = rows.get(id);
      return row && { name: row.name, description: row.description, expiresMs: row.expires_ms ?? undefined, capabilities: capabilitiesOf(row) };
    },
    regenerate: (id, existingExpiresMs, replacement, nowMs) => {
      const made = regenerateRows(id, existingExpiresMs, replacement, nowMs);
      if (!made) return undefined;
      const existing = rows.get(id);
      if (existing) rows.set(id, { ...existing, expires_ms: existingExpiresMs });
      rows.set(made.row.id, made.row);
      digests = undefined;
      return { ...toApiToken(made.row), token: made.value };
    },
    delete: (id) => {
      if (remove.run(id).changes === 0) return false;
      rows.delete(id);
      digests = undefined;
      return true;
    },
  };
}

function capabilitiesOf(row: TokenRow): Capabilities {
  return { datasets: JSON.parse(row.dataset_capabilities) as Capabilities['datasets'], org: JSON.parse(row.org_capabilities) as Capabilities['org'] };
}

function toApiToken(row: TokenRow): ApiToken {
  const capabilities = capabilitiesOf(row);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    ...(row.expires_ms === null ? {} : { expiresAt: formatTime(row.expires_ms) }),
    datasetCapabilities: capabilities.datasets,
    orgCapabilities: capabilities.org,
    samlAuthenticated: false,
  };
}
