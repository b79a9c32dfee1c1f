import { InputError } from '../../common/errors.js';
import { randomId } from '../../common/random-id.js';
import { formatTime } from '../../common/time.js';
import type { ServiceDatabase } from '../database.js';
import { MASKED_HEADER_VALUE, type NotifierInput } from './validation.js';

export interface Notifier {
  id: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  disabledUntilMs: number | undefined;
  createdMs: number;
  createdBy: string;
  updatedMs: number;
}

/** A notifier as the API shows it: the hosted service's shape, with header values masked. */
export interface WireNotifier {
  id: string;
  name: string;
  properties: { customWebhook: { url: string; headers: Record<string, string>; body: string } };
  disabledUntil?: string;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
}

export interface NotifierStore {
  create(input: NotifierInput, createdBy: string, nowMs: number): Notifier;
  get(id: string): Notifier | undefined;
  list(): Notifier[];
  /** Replaces the notifier; undefined when no notifier has this id. */
  update(id: string, input: NotifierInput, nowMs: number): Notifier | undefined;
  /** Also takes it off every monitor and drops its pending deliveries (foreign keys cascade). */
  delete(id: string): boolean;
}

interface NotifierRow {
  id: string;
  name: string;
  webhook_url: string;
  webhook_headers: string;
  webhook_body: string;
  disabled_until_ms: number | null;
  created_ms: number;
  created_by: string;
  updated_ms: number;
}

const COLUMNS = 'id, name, webhook_url, webhook_headers, webhook_body, disabled_until_ms, created_ms, created_by, updated_ms';

export function createNotifierStore(db: ServiceDatabase): NotifierStore {
  const insert = db.prepare(
    `INSERT INTO notifiers (${COLUMNS})
     VALUES (@id, @name, @webhook_url, @webhook_headers, @webhook_body, @disabled_until_ms, @created_ms, @created_by, @updated_ms)`,
  );
  const selectOne = db.prepare<[string], NotifierRow>(`SELECT ${COLUMNS} FROM notifiers WHERE id = ?`);
  const selectAll = db.prepare<[], NotifierRow>(`SELECT ${COLUMNS} FROM notifiers ORDER BY created_ms, id`);
  const replace = db.prepare(
    `UPDATE notifiers SET name = @name, webhook_url = @webhook_url, webhook_headers = @webhook_headers,
     webhook_body = @webhook_body, disabled_until_ms = @disabled_until_ms, updated_ms = @updated_ms WHERE id = @id`,
  );
  const remove = db.prepare('DELETE FROM notifiers WHERE id = ?');

  const update = db.transaction((id: string, input: NotifierInput, nowMs: number): Notifier | undefined => {
    const current = selectOne.get(id);
    if (!current) return undefined;
    const headers = keepMaskedHeaders(input.headers, JSON.parse(current.webhook_headers) as Record<string, string>);
    const row: NotifierRow = { ...toRow(id, { ...input, headers }, current.created_ms, current.created_by), updated_ms: nowMs };
    replace.run(row);
    return fromRow(row);
  });

  return {
    create(input, createdBy, nowMs) {
      const headers = keepMaskedHeaders(input.headers, {});
      const row = toRow(randomId('ntf_', 20), { ...input, headers }, nowMs, createdBy);
      insert.run(row);
      return fromRow(row);
    },
    get: (id) => {
      const row = selectOne.get(id);
      return row ? fromRow(row) : undefined;
    },
    list: () => selectAll.all().map(fromRow),
    update,
    delete: (id) => remove.run(id).changes > 0,
  };
}

/** Replaces each masked header value with the stored one (matched case-insensitively). */
function keepMaskedHeaders(given: Record<string, string>, stored: Record<string, string>): Record<string, string> {
  const storedByName = new Map(Object.entries(stored).map(([name, value]) => [name.toLowerCase(), value]));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value !== MASKED_HEADER_VALUE) {
      headers[name] = value;
      continue;
    }
    const kept = storedByName.get(name.toLowerCase());
    if (kept === undefined) {
      throw new InputError(
        `Header ${JSON.stringify(name)} has the masked value ${MASKED_HEADER_VALUE}, but no value is stored for it. Expected its real value.`,
      );
    }
    headers[name] = kept;
  }
  return headers;
}

export function toWireNotifier(notifier: Notifier): WireNotifier {
  const headers = Object.fromEntries(Object.keys(notifier.headers).map((name) => [name, MASKED_HEADER_VALUE]));
  const wire: WireNotifier = {
    id: notifier.id,
    name: notifier.name,
    properties: { customWebhook: { url: notifier.url, headers, body: notifier.body } },
    createdAt: formatTime(notifier.createdMs),
    createdBy: notifier.createdBy,
    updatedAt: formatTime(notifier.updatedMs),
  };
  if (notifier.disabledUntilMs !== undefined) wire.disabledUntil = formatTime(notifier.disabledUntilMs);
  return wire;
}

function toRow(id: string, input: NotifierInput, createdMs: number, createdBy: string): NotifierRow {
  return {
    id,
    name: input.name,
    webhook_url: input.url,
    webhook_headers: JSON.stringify(input.headers),
    webhook_body: input.body,
    disabled_until_ms: input.disabledUntilMs ?? null,
    created_ms: createdMs,
    created_by: createdBy,
    updated_ms: createdMs,
  };
}

function fromRow(row: NotifierRow): Notifier {
  return {
    id: row.id,
    name: row.name,
    url: row.webhook_url,
    headers: JSON.parse(row.webhook_headers) as Record<string, string>,
    body: row.webhook_body,
    disabledUntilMs: row.disabled_until_ms ?? undefined,
    createdMs: row.created_ms,
    createdBy: row.created_by,
    updatedMs: row.updated_ms,
  };
}
