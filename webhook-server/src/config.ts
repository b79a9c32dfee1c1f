/**
 * The bridge's configuration: environment variables, optionally a JSON or YAML file named by
 * --config, flags for where to listen. Read and validated once at start-up; every message names
 * the variable (or file key) at fault and says what was expected. Environment variables win over the file.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { parseServiceUrl } from '../../src/client/index.js';
import { InputError } from '../../src/common/input-error.js';
import { DEFAULT_TYPES, type MappingConfig, type MappingRule, type MatchValue } from './mapping/mapping.js';
import { DELIVERY_DEFAULTS, type DeliverySettings } from './outbox/worker.js';
import { SOURCE_NAMES, type SourceName } from './sources/types.js';

export class BridgeConfigError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'BridgeConfigError';
  }
}

export interface BridgeConfig {
  port: number;
  host: string;
  dataDir: string;
  service: { url: string; token: string; orgId?: string };
  /** Absent: the embedded SQLite store in the data dir. */
  database?: { url: string; schema?: string };
  /** Sources with at least one secret are on; the others answer 404. */
  secrets: Partial<Record<SourceName, string[]>>;
  /** Absent: one is generated, saved in the data dir and printed. */
  adminToken?: string;
  mapping: MappingConfig;
  delivery: DeliverySettings;
  bodyLimitBytes: number;
}

export const BRIDGE_DEFAULTS = {
  port: 3000,
  host: '127.0.0.1',
  dataDir: '.timemark-bridge',
  bodyLimitBytes: 1024 * 1024,
} as const;

/** The environment variable holding a source's secrets, e.g. GITHUB_WEBHOOK_SECRET. */
export function secretVariable(source: SourceName): string {
  return `${source.toUpperCase()}_WEBHOOK_SECRET`;
}

export interface BridgeFlags {
  port?: number;
  host?: string;
  dataDir?: string;
  configFile?: string;
}

interface FileConfig {
  url?: unknown;
  token?: unknown;
  orgId?: unknown;
  datasets?: unknown;
  databaseUrl?: unknown;
  databaseSchema?: unknown;
  secrets?: unknown;
  adminToken?: unknown;
  maxOpenTime?: unknown;
  types?: unknown;
  rules?: unknown;
  delivery?: unknown;
}

const FILE_KEYS = ['url', 'token', 'orgId', 'datasets', 'databaseUrl', 'databaseSchema', 'secrets', 'adminToken', 'maxOpenTime', 'types', 'rules', 'delivery'];
const TYPE_PATTERN = /^[a-z0-9-]+$/;

export function loadBridgeConfig(flags: BridgeFlags, env: NodeJS.ProcessEnv): BridgeConfig {
  const file = flags.configFile === undefined ? {} : readConfigFile(flags.configFile);
  const fileKey = (key: string): string => (flags.configFile === undefined ? '' : ` or "${key}" in ${flags.configFile}`);

  const url = fromEnv(env, 'TIMEMARK_URL') ?? optionalString(file.url, 'url', flags.configFile);
  if (url === undefined) {
    throw new BridgeConfigError(`TIMEMARK_URL is not set${fileKey('url')}. Expected the annotation service's address, e.g. https://api.axiom.co.`);
  }
  try {
    parseServiceUrl(url);
  } catch (error) {
    throw new BridgeConfigError(`TIMEMARK_URL: ${error instanceof Error ? error.message : String(error)}`);
  }
  const token = fromEnv(env, 'TIMEMARK_TOKEN') ?? optionalString(file.token, 'token', flags.configFile);
  if (token === undefined) {
    throw new BridgeConfigError(`TIMEMARK_TOKEN is not set${fileKey('token')}. Expected an API token (xaat-…) or a personal token (xapt-…, with TIMEMARK_ORG_ID).`);
  }
  const orgId = fromEnv(env, 'TIMEMARK_ORG_ID') ?? optionalString(file.orgId, 'orgId', flags.configFile);

  const datasetsText = fromEnv(env, 'TIMEMARK_DATASETS');
  const datasets =
    datasetsText !== undefined ? parseList('TIMEMARK_DATASETS', datasetsText) : optionalList(file.datasets, 'datasets', flags.configFile) ?? [];
  const rules = parseRules(file.rules, flags.configFile);
  if (datasets.length === 0 && !(rules.length > 0 && rules.every((rule) => rule.datasets !== undefined || rule.ignore))) {
    throw new BridgeConfigError(
      `TIMEMARK_DATASETS is not set${fileKey('datasets')}. Expected a comma-separated list of datasets to annotate, e.g. "production-logs,traces".`,
    );
  }

  const secrets: Partial<Record<SourceName, string[]>> = {};
  const fileSecrets = parseFileSecrets(file.secrets, flags.configFile);
  for (const source of SOURCE_NAMES) {
    const variable = secretVariable(source);
    const text = fromEnv(env, variable);
    const list = text !== undefined ? parseList(variable, text) : fileSecrets[source];
    if (list && list.length > 0) secrets[source] = list;
  }
  if (Object.keys(secrets).length === 0) {
    throw new BridgeConfigError(
      `No source is on: set at least one of ${SOURCE_NAMES.map(secretVariable).join(', ')}${fileKey('secrets')}. Expected a secret (comma-separated for rotation) per source you connect.`,
    );
  }

  const databaseUrl = fromEnv(env, 'DATABASE_URL') ?? optionalString(file.databaseUrl, 'databaseUrl', flags.configFile);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new BridgeConfigError('DATABASE_URL is not a PostgreSQL URL. Expected postgres://user:password@host:5432/database, or unset it for the embedded SQLite store.');
  }
  const schema = fromEnv(env, 'TIMEMARK_BRIDGE_DATABASE_SCHEMA') ?? optionalString(file.databaseSchema, 'databaseSchema', flags.configFile);
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new BridgeConfigError(`Invalid TIMEMARK_BRIDGE_DATABASE_SCHEMA ${JSON.stringify(schema)}. Expected lower-case letters, digits and underscores.`);
  }

  const maxOpenText = fromEnv(env, 'TIMEMARK_BRIDGE_MAX_OPEN') ?? optionalString(file.maxOpenTime, 'maxOpenTime', flags.configFile);
  const maxOpenMs = maxOpenText === undefined ? DELIVERY_DEFAULTS.maxOpenMs : parseDuration('TIMEMARK_BRIDGE_MAX_OPEN', maxOpenText);

  const config: BridgeConfig = {
    port: flags.port ?? BRIDGE_DEFAULTS.port,
    host: flags.host ?? BRIDGE_DEFAULTS.host,
    dataDir: flags.dataDir ?? BRIDGE_DEFAULTS.dataDir,
    service: { url, token, ...(orgId === undefined ? {} : { orgId }) },
    secrets,
    mapping: { datasets, types: parseTypes(file.types, flags.configFile), rules },
    delivery: { ...DELIVERY_DEFAULTS, ...parseDelivery(file.delivery, flags.configFile), maxOpenMs },
    bodyLimitBytes: BRIDGE_DEFAULTS.bodyLimitBytes,
  };
  if (databaseUrl !== undefined) config.database = { url: databaseUrl, ...(schema === undefined ? {} : { schema }) };
  const adminToken = fromEnv(env, 'TIMEMARK_BRIDGE_ADMIN_TOKEN') ?? optionalString(file.adminToken, 'adminToken', flags.configFile);
  if (adminToken !== undefined) {
    if (adminToken.length < 16) throw new BridgeConfigError('TIMEMARK_BRIDGE_ADMIN_TOKEN is too short. Expected at least 16 characters.');
    config.adminToken = adminToken;
  }
  return config;
}

function readConfigFile(path: string): FileConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new BridgeConfigError(`Cannot read the config file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}. Expected a readable JSON or YAML file.`);
  }
  let parsed: unknown;
  try {
    // YAML 1.2 is a superset of JSON, so one parser reads both.
    parsed = parseYaml(text);
  } catch (error) {
    throw new BridgeConfigError(`The config file ${path} is neither JSON nor YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new BridgeConfigError(`The config file ${path} must hold an object (keys such as "datasets" and "rules").`);
  }
  const unknown = Object.keys(parsed).filter((key) => !FILE_KEYS.includes(key));
  if (unknown.length > 0) {
    throw new BridgeConfigError(`Unknown key ${JSON.stringify(unknown[0])} in the config file ${path}. Expected any of: ${FILE_KEYS.join(', ')}.`);
  }
  return parsed as FileConfig;
}

function fromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function optionalString(value: unknown, key: string, file: string | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new BridgeConfigError(`"${key}" in ${file} must be a non-empty string.`);
  return value.trim();
}

function parseList(label: string, text: string): string[] {
  const items = text.split(',').map((item) => item.trim());
  if (items.some((item) => item === '')) {
    throw new BridgeConfigError(`Invalid ${label}: it has an empty entry. Expected a comma-separated list with none empty.`);
  }
  return items;
}

function optionalList(value: unknown, key: string, file: string | undefined): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return parseList(`"${key}" in ${file}`, value);
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item.trim() !== '')) {
    return value.map((item: string) => item.trim());
  }
  throw new BridgeConfigError(`"${key}" in ${file} must be a non-empty list of non-empty strings.`);
}

function parseFileSecrets(value: unknown, file: string | undefined): Partial<Record<SourceName, string[]>> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new BridgeConfigError(`"secrets" in ${file} must map source names to secrets.`);
  const result: Partial<Record<SourceName, string[]>> = {};
  for (const [source, secrets] of Object.entries(value)) {
    if (!(SOURCE_NAMES as readonly string[]).includes(source)) {
      throw new BridgeConfigError(`Unknown source ${JSON.stringify(source)} in "secrets" in ${file}. Expected one of: ${SOURCE_NAMES.join(', ')}.`);
    }
    const list = optionalList(secrets, `secrets.${source}`, file);
    if (list) result[source as SourceName] = list;
  }
  return result;
}

function parseTypes(value: unknown, file: string | undefined): MappingConfig['types'] {
  if (value === undefined || value === null) return DEFAULT_TYPES;
  if (typeof value !== 'object' || Array.isArray(value)) throw new BridgeConfigError(`"types" in ${file} must map "deploy" and "incident" to annotation types.`);
  const types = { ...DEFAULT_TYPES };
  for (const [category, type] of Object.entries(value)) {
    if (category !== 'deploy' && category !== 'incident') {
      throw new BridgeConfigError(`Unknown category ${JSON.stringify(category)} in "types" in ${file}. Expected "deploy" or "incident".`);
    }
    types[category] = checkType(type, `types.${category}`, file);
  }
  return types;
}

function checkType(value: unknown, key: string, file: string | undefined): string {
  if (typeof value !== 'string' || !TYPE_PATTERN.test(value) || value.length > 256) {
    throw new BridgeConfigError(`Invalid "${key}" ${JSON.stringify(value)} in ${file}. Expected an annotation type of lower-case letters, digits and dashes, e.g. "deploy".`);
  }
  return value;
}

const RULE_KEYS = ['match', 'datasets', 'type', 'title', 'ignore'];

function parseRules(value: unknown, file: string | undefined): MappingRule[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new BridgeConfigError(`"rules" in ${file} must be a list of rules.`);
  return value.map((raw: unknown, index): MappingRule => {
    const at = `rules[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new BridgeConfigError(`${at} in ${file} must be an object with "match".`);
    const record = raw as Record<string, unknown>;
    const unknown = Object.keys(record).find((key) => !RULE_KEYS.includes(key));
    if (unknown !== undefined) {
      throw new BridgeConfigError(`Unknown key ${JSON.stringify(unknown)} in ${at} in ${file}. Expected any of: ${RULE_KEYS.join(', ')}.`);
    }
    const match: Record<string, MatchValue> = {};
    if (typeof record.match !== 'object' || record.match === null || Array.isArray(record.match)) {
      throw new BridgeConfigError(`${at}.match in ${file} must be an object such as {source: github, environment: production}.`);
    }
    for (const [key, expected] of Object.entries(record.match)) {
      if (typeof expected === 'string') match[key] = expected;
      else if (Array.isArray(expected) && expected.every((item) => typeof item === 'string')) match[key] = expected as string[];
      else if (typeof expected === 'number' || typeof expected === 'boolean') match[key] = String(expected);
      else throw new BridgeConfigError(`${at}.match.${key} in ${file} must be a string (with * wildcards) or a list of them.`);
    }
    const rule: MappingRule = { match };
    const datasets = optionalList(record.datasets, `${at}.datasets`, file);
    if (datasets) rule.datasets = datasets;
    if (record.type !== undefined) rule.type = checkType(record.type, `${at}.type`, file);
    if (record.title !== undefined) {
      if (typeof record.title !== 'string') throw new BridgeConfigError(`${at}.title in ${file} must be a string template such as "{{repository}} to {{environment}}".`);
      rule.title = record.title;
    }
    if (record.ignore !== undefined) {
      if (typeof record.ignore !== 'boolean') throw new BridgeConfigError(`${at}.ignore in ${file} must be true or false.`);
      rule.ignore = record.ignore;
    }
    return rule;
  });
}

const DELIVERY_KEYS: Array<keyof DeliverySettings> = ['concurrency', 'maxAttempts', 'baseDelayMs', 'maxDelayMs', 'pollMs', 'leaseMs'];

function parseDelivery(value: unknown, file: string | undefined): Partial<DeliverySettings> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new BridgeConfigError(`"delivery" in ${file} must be an object.`);
  const result: Partial<DeliverySettings> = {};
  for (const [key, setting] of Object.entries(value)) {
    if (!(DELIVERY_KEYS as string[]).includes(key)) {
      throw new BridgeConfigError(`Unknown key ${JSON.stringify(key)} in "delivery" in ${file}. Expected any of: ${DELIVERY_KEYS.join(', ')}.`);
    }
    if (typeof setting !== 'number' || !Number.isInteger(setting) || setting <= 0) {
      throw new BridgeConfigError(`"delivery.${key}" in ${file} must be a whole number above 0.`);
    }
    result[key as keyof DeliverySettings] = setting;
  }
  return result;
}

const DURATION_UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(label: string, text: string): number {
  const match = /^(\d+)\s*(s|m|h|d)$/.exec(text.trim());
  const amount = match ? Number(match[1]) * (DURATION_UNITS[match[2] ?? ''] ?? 0) : 0;
  if (!match || amount <= 0) throw new BridgeConfigError(`Invalid ${label} ${JSON.stringify(text)}. Expected a duration such as "90m", "24h" or "2d".`);
  return amount;
}
