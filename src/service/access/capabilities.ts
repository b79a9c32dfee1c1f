/**
 * What an API token may do, in the hosted service's terms: `datasetCapabilities` (per dataset
 * name, or `*` for every dataset) and `orgCapabilities`, each a capability with the actions it
 * allows. The capabilities and their actions are the hosted API's (its OpenAPI description, which
 * the official clients' token types mirror); a token holds exactly what it was given.
 */
import { InputError } from '../../common/errors.js';
import { jsonObject } from '../../common/json-object.js';
import { previewJson } from '../../common/json-preview.js';

export type Action = 'create' | 'read' | 'update' | 'delete';

const CRUD: readonly Action[] = ['create', 'read', 'update', 'delete'];

/** Each dataset capability and the actions the hosted service defines for it. */
export const DATASET_CAPABILITIES = {
  ingest: ['create'],
  query: ['read'],
  starredQueries: CRUD,
  virtualFields: CRUD,
  trim: ['update'],
  vacuum: ['update'],
  data: ['delete'],
  share: ['create', 'read', 'delete'],
} as const satisfies Record<string, readonly Action[]>;

/** Each organization capability and its actions. */
export const ORG_CAPABILITIES = {
  annotations: CRUD,
  apiTokens: CRUD,
  auditLog: ['read'],
  billing: ['read', 'update'],
  dashboards: CRUD,
  datasets: CRUD,
  endpoints: CRUD,
  flows: CRUD,
  integrations: CRUD,
  monitors: CRUD,
  notifiers: CRUD,
  rbac: CRUD,
  sharedAccessKeys: ['read', 'update'],
  users: CRUD,
  views: CRUD,
} as const satisfies Record<string, readonly Action[]>;

export type DatasetCapability = keyof typeof DATASET_CAPABILITIES;
export type OrgCapability = keyof typeof ORG_CAPABILITIES;

/** Actions by capability; a capability without actions is left out. */
export type CapabilitySet<K extends string> = Partial<Record<K, readonly Action[]>>;

export interface Capabilities {
  /** By dataset name; `*` applies to every dataset. */
  readonly datasets: Readonly<Record<string, CapabilitySet<DatasetCapability>>>;
  readonly org: CapabilitySet<OrgCapability>;
}

/** Who made a request: a token given at start-up (all-powerful), or an API token holding only its capabilities. */
export type Principal = { readonly kind: 'root' } | { readonly kind: 'token'; readonly id: string; readonly capabilities: Capabilities };

export const ROOT: Principal = { kind: 'root' };

/** What a request needs. */
export type Need =
  | { readonly org: OrgCapability; readonly action: Action }
  | { readonly dataset: string; readonly capability: DatasetCapability; readonly action: Action };

export const WILDCARD_DATASET = '*';

/** Whether the principal may do what `need` says. */
export function allows(principal: Principal, need: Need): boolean {
  if (principal.kind === 'root') return true;
  const { capabilities } = principal;
  if ('org' in need) return capabilities.org[need.org]?.includes(need.action) ?? false;
  return [need.dataset, WILDCARD_DATASET].some((name) => capabilities.datasets[name]?.[need.capability]?.includes(need.action) ?? false);
}

/** A need in words, for 403 messages: `query:read on dataset "logs"`, `annotations:create`. */
export function describeNeed(need: Need): string {
  return 'org' in need ? `the ${need.org}:${need.action} capability` : `the ${need.capability}:${need.action} capability on dataset ${JSON.stringify(need.dataset)}`;
}

/**
 * Whether everything `granted` allows, `principal` allows too: a token may only make tokens
 * that can do no more than it can (otherwise `apiTokens:create` would be every capability).
 */
export function covers(principal: Principal, granted: Capabilities): boolean {
  if (principal.kind === 'root') return true;
  for (const [org, actions] of Object.entries(granted.org) as [OrgCapability, readonly Action[]][]) {
    if (!actions.every((action) => allows(principal, { org, action }))) return false;
  }
  for (const [dataset, set] of Object.entries(granted.datasets)) {
    for (const [capability, actions] of Object.entries(set) as [DatasetCapability, readonly Action[]][]) {
      // A wildcard grant is covered only by the granter's own wildcard: `*` names datasets it may never have seen.
      const own = principal.capabilities.datasets;
      const held = (action: Action): boolean =>
        dataset === WILDCARD_DATASET ? (own[WILDCARD_DATASET]?.[capability]?.includes(action) ?? false) : allows(principal, { dataset, capability, action });
      if (!actions.every(held)) return false;
    }
  }
  return true;
}

/** Dataset names as capability keys: a dataset name (see DATASET_NAME_PATTERN) or `*`. */
const DATASET_KEY = /^(?:\*|[A-Za-z0-9][A-Za-z0-9._-]{0,127})$/;
const MAX_DATASET_ENTRIES = 1000;

/** `datasetCapabilities` as a request sends it; null or absent is none. */
export function parseDatasetCapabilities(label: string, value: unknown): Capabilities['datasets'] {
  if (value === undefined || value === null) return {};
  const object = jsonObject(label, value);
  const entries = Object.entries(object);
  if (entries.length > MAX_DATASET_ENTRIES) throw new InputError(`${label} names ${entries.length} datasets. Expected at most ${MAX_DATASET_ENTRIES}.`);
  const parsed: Record<string, CapabilitySet<DatasetCapability>> = {};
  for (const [dataset, set] of entries) {
    if (!DATASET_KEY.test(dataset)) {
      throw new InputError(`Invalid dataset ${previewJson(dataset)} in ${label}. Expected a dataset name (letters, digits, ".", "_" or "-") or "*" for every dataset.`);
    }
    const capabilities = parseCapabilitySet(`${label}.${dataset}`, set, DATASET_CAPABILITIES);
    if (Object.keys(capabilities).length > 0) parsed[dataset] = capabilities;
  }
  return parsed;
}

/** `orgCapabilities` as a request sends it; null or absent is none. */
export function parseOrgCapabilities(label: string, value: unknown): Capabilities['org'] {
  if (value === undefined || value === null) return {};
  return parseCapabilitySet(label, value, ORG_CAPABILITIES);
}

function parseCapabilitySet<K extends string>(label: string, value: unknown, known: Readonly<Record<K, readonly Action[]>>): CapabilitySet<K> {
  const object = jsonObject(label, value);
  const parsed: CapabilitySet<K> = {};
  for (const [name, actions] of Object.entries(object)) {
    if (!Object.hasOwn(known, name)) {
      throw new InputError(`Unknown capability ${previewJson(name)} in ${label}. Expected one of: ${Object.keys(known).join(', ')}.`);
    }
    const allowed = known[name as K];
    if (actions === null || actions === undefined) continue;
    if (!Array.isArray(actions)) throw new InputError(`Invalid ${label}.${name} ${previewJson(actions)}. Expected an array of actions such as ["${allowed[0]}"].`);
    const chosen = new Set<Action>();
    for (const action of actions) {
      if (typeof action !== 'string' || !(allowed as readonly string[]).includes(action)) {
        throw new InputError(`Invalid action ${previewJson(action)} in ${label}.${name}. Expected one of: ${allowed.join(', ')}.`);
      }
      chosen.add(action as Action);
    }
    // In the canonical order, so that a token reads back the same however its actions were listed.
    if (chosen.size > 0) parsed[name as K] = allowed.filter((action) => chosen.has(action));
  }
  return parsed;
}
