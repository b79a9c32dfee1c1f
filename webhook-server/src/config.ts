/**
 * The bridge's configuration: environment variables, optionally a JSON or YAML file named by
 * --config, flags for where to listen. Read and validated once at start-up; every message names
 * the flag, variable or file key at fault and says what was expected. Flags win over variables,
 * variables over the file. `timemark start` passes overrides (its own service, generated secrets)
 * instead of writing an environment.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { parseServiceUrl } from '../../src/client/index.js';
import { checkType as checkAnnotationType } from '../../src/common/annotation-contract.js';
import { parseDuration } from '../../src/common/duration.js';
import { ConfigError } from '../../src/common/errors.js';
import { parseLogLevel, type LogLevel } from '../../src/common/logger.js';
import { parseNameList } from '../../src/common/name-list.js';
import { parsePort, readEnv, type PartConfig, type PartFlags } from '../../src/common/settings.js';
import { DEFAULT_TYPES, type MappingConfig, type MappingRule, type MatchValue } from './mapping/mapping.js';
import { DELIVERY_DEFAULTS, type DeliverySettings } from './outbox/worker.js';
import { SOURCE_NAMES, type SourceName } from './sources/types.js';

export interface BridgeConfig extends PartConfig {
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
  logLevel: 'info',
} as const;

/** The environment variable holding a source's secrets, e.g. GITHUB_WEBHOOK_SECRET. */
export function secretVariable(source: SourceName): string {
  return `${source.toUpperCase()}_WEBHOOK_SECRET`;
}

export interface BridgeFlags extends PartFlags {
  configFile?: string;
}

/** What a caller that runs the bridge itself (`timemark start`) decides instead of the environment. */
export interface BridgeOverrides {
  /** The annotation service, in place of TIMEMARK_URL, TIMEMARK_TOKEN and TIMEMARK_ORG_ID. */
  service?: BridgeConfig['service'];
  /** Keep the state in the data dir even when DATABASE_URL is set. */
  embeddedStore?: boolean;
  /** Used where neither the environment nor the file sets a value. */
  defaults?: {
    datasets?: readonly string[];
    /** A source's secret; called only for sources that have none configured, with the data dir. */
    secret?: (source: SourceName, dataDir: string) => string;
    logLevel?: LogLevel;
  };
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

export function loadBridgeConfig(flags: BridgeFlags, env: NodeJS.ProcessEnv, overrides: BridgeOverrides = {}): BridgeConfig {
  const configFile = flags.configFile ?? readEnv(env, 'TIMEMARK_BRIDGE_CONFIG');
  const file = configFile === undefined ? {} : readConfigFile(configFile);
  const fileKey = (key: string): string => (configFile === undefined ? '' : ` or "${key}" in ${configFile}`);

  const service = overrides.service ?? readService(env, file, configFile, fileKey);
  const dataDir = flags.dataDir ?? readEnv(env, 'TIMEMARK_BRIDGE_DATA_DIR') ?? BRIDGE_DEFAULTS.dataDir;

  const datasetsText = readEnv(env, 'TIMEMARK_DATASETS');
  const datasets =
    datasetsText !== undefined
      ? parseNameList('TIMEMARK_DATASETS', [datasetsText])
      : (optionalList(file.datasets, 'datasets', configFile) ?? [...(overrides.defaults?.datasets ?? [])]);
  const rules = parseRules(file.rules, configFile);
  if (datasets.length === 0 && !(rules.length > 0 && rules.every((rule) => rule.datasets !== undefined || rule.ignore))) {
    throw new ConfigError(
      `TIMEMARK_DATASETS is not set${fileKey('datasets')}. Expected a comma-separated list of datasets to annotate, e.g. "production-logs,traces".`,
    );
  }

  const secrets: Partial<Record<SourceName, string[]>> = {};
  const fileSecrets = parseFileSecrets(file.secrets, configFile);
  for (const source of SOURCE_NAMES) {
    const variable = secretVariable(source);
    const text = readEnv(env, variable);
    const list = text !== undefined ? parseNameList(variable, [text]) : fileSecrets[source];
    if (list && list.length > 0) secrets[source] = list;
    else if (overrides.defaults?.secret) secrets[source] = [overrides.defaults.secret(source, dataDir)];
  }
  if (Object.keys(secrets).length === 0) {
    throw new ConfigError(
      `No source is on: set at least one of ${SOURCE_NAMES.map(secretVariable).join(', ')}${fileKey('secrets')}. Expected a secret (comma-separated for rotation) per source you connect.`,
    );
  }

  const databaseUrl = overrides.embeddedStore ? undefined : (readEnv(env, 'DATABASE_URL') ?? optionalString(file.databaseUrl, 'databaseUrl', configFile));
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL is not a PostgreSQL URL. Expected postgres://user:password@host:5432/database, or unset it for the embedded SQLite store.');
  }
  const schema = readEnv(env, 'TIMEMARK_BRIDGE_DATABASE_SCHEMA') ?? optionalString(file.databaseSchema, 'databaseSchema', configFile);
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new ConfigError(`Invalid TIMEMARK_BRIDGE_DATABASE_SCHEMA ${JSON.stringify(schema)}. Expected lower-case letters, digits and underscores.`);
  }

  const maxOpenText = readEnv(env, 'TIMEMARK_BRIDGE_MAX_OPEN') ?? optionalString(file.maxOpenTime, 'maxOpenTime', configFile);
  const maxOpenMs = maxOpenText === undefined ? DELIVERY_DEFAULTS.maxOpenMs : parseDuration('TIMEMARK_BRIDGE_MAX_OPEN', maxOpenText, ConfigError);
  const portText = readEnv(env, 'TIMEMARK_BRIDGE_PORT');
  const logLevelText = readEnv(env, 'TIMEMARK_BRIDGE_LOG_LEVEL');

  const config: BridgeConfig = {
    port: flags.port ?? (portText === undefined ? BRIDGE_DEFAULTS.port : parsePort('TIMEMARK_BRIDGE_PORT', portText)),
    host: flags.host ?? readEnv(env, 'TIMEMARK_BRIDGE_HOST') ?? BRIDGE_DEFAULTS.host,
    dataDir,
    dataDirOption: `${flags.dataDirFlag ?? '--data-dir'} / TIMEMARK_BRIDGE_DATA_DIR`,
    service,
    secrets,
    mapping: { datasets, types: parseTypes(file.types, configFile), rules },
    delivery: { ...DELIVERY_DEFAULTS, ...parseDelivery(file.delivery, configFile), maxOpenMs },
    bodyLimitBytes: BRIDGE_DEFAULTS.bodyLimitBytes,
    logLevel:
      logLevelText === undefined
        ? (overrides.defaults?.logLevel ?? BRIDGE_DEFAULTS.logLevel)
        : parseLogLevel('TIMEMARK_BRIDGE_LOG_LEVEL', logLevelText),
  };
  if (databaseUrl !== undefined) config.database = { url: databaseUrl, ...(schema === undefined ? {} : { schema }) };
  const adminToken = readEnv(env, 'TIMEMARK_BRIDGE_ADMIN_TOKEN') ?? optionalString(file.adminToken, 'adminToken', configFile);
  if (adminToken !== undefined) {
    const problem = adminTokenProblem(adminToken);
    if (problem !== undefined) throw new ConfigError(`TIMEMARK_BRIDGE_ADMIN_TOKEN ${problem}.`);
    config.adminToken = adminToken;
  }
  return config;
}

/** What is wrong with an admin token (configured or read back from its file), or undefined. */
export function adminTokenProblem(token: string): string | undefined {
  return token.length < 16 ? 'is too short. Expected at least 16 characters' : undefined;
}

function readService(env: NodeJS.ProcessEnv, file: FileConfig, configFile: string | undefined, fileKey: (key: string) => string): BridgeConfig['service'] {
  const url = readEnv(env, 'TIMEMARK_URL') ?? optionalString(file.url, 'url', configFile);
  if (url === undefined) {
    throw new ConfigError(`TIMEMARK_URL is not set${fileKey('url')}. Expected the annotation service's address, e.g. https://api.axiom.co.`);
  }
  parseServiceUrl(url, 'TIMEMARK_URL');
  const token = readEnv(env, 'TIMEMARK_TOKEN') ?? optionalString(file.token, 'token', configFile);
  if (token === undefined) {
    throw new ConfigError(`TIMEMARK_TOKEN is not set${fileKey('token')}. Expected an API token (xaat-…) or a personal token (xapt-…, with TIMEMARK_ORG_ID).`);
  }
  const orgId = readEnv(env, 'TIMEMARK_ORG_ID') ?? optionalString(file.orgId, 'orgId', configFile);
  return { url, token, ...(orgId === undefined ? {} : { orgId }) };
}

function readConfigFile(path: string): FileConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read the config file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}. Expected a readable JSON or YAML file.`);
  }
  let parsed: unknown;
  try {
    // YAML 1.2 is a superset of JSON, so one parser reads both.
    parsed = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`The config file ${path} is neither JSON nor YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`The config file ${path} must hold an object (keys such as "datasets" and "rules").`);
  }
  const unknown = Object.keys(parsed).filter((key) => !FILE_KEYS.includes(key));
  if (unknown.length > 0) {
    throw new ConfigError(`Unknown key ${JSON.stringify(unknown[0])} in the config file ${path}. Expected any of: ${FILE_KEYS.join(', ')}.`);
  }
  return parsed as FileConfig;
}

function optionalString(value: unknown, key: string, file: string | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(`"${key}" in ${file} must be a non-empty string.`);
  return value.trim();
}

function optionalList(value: unknown, key: string, file: string | undefined): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return parseNameList(`"${key}" in ${file}`, [value]);
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item.trim() !== '')) {
    return value.map((item: string) => item.trim());
  }
  throw new ConfigError(`"${key}" in ${file} must be a non-empty list of non-empty strings.`);
}

function parseFileSecrets(value: unknown, file: string | undefined): Partial<Record<SourceName, string[]>> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(`"secrets" in ${file} must map source names to secrets.`);
  const result: Partial<Record<SourceName, string[]>> = {};
  for (const [source, secrets] of Object.entries(value)) {
    if (!(SOURCE_NAMES as readonly string[]).includes(source)) {
      throw new ConfigError(`Unknown source ${JSON.stringify(source)} in "secrets" in ${file}. Expected one of: ${SOURCE_NAMES.join(', ')}.`);
    }
    const list = optionalList(secrets, `secrets.${source}`, file);
    if (list) result[source as SourceName] = list;
  }
  return result;
}

function parseTypes(value: unknown, file: string | undefined): MappingConfig['types'] {
  if (value === undefined || value === null) return DEFAULT_TYPES;
  if (typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(`"types" in ${file} must map "deploy" and "incident" to annotation types.`);
  const types = { ...DEFAULT_TYPES };
  for (const [category, type] of Object.entries(value)) {
    if (category !== 'deploy' && category !== 'incident') {
      throw new ConfigError(`Unknown category ${JSON.stringify(category)} in "types" in ${file}. Expected "deploy" or "incident".`);
    }
    types[category] = checkType(type, `types.${category}`, file);
  }
  return types;
}

function checkType(value: unknown, key: string, file: string | undefined): string {
  if (typeof value !== 'string') {
    throw new ConfigError(`Invalid "${key}" ${JSON.stringify(value)} in ${file}. Expected an annotation type of lowercase letters, digits and dashes, e.g. "deploy".`);
  }
  return checkAnnotationType(`"${key}" in ${file}`, value);
}

const RULE_KEYS = ['match', 'datasets', 'type', 'title', 'ignore'];

function parseRules(value: unknown, file: string | undefined): MappingRule[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ConfigError(`"rules" in ${file} must be a list of rules.`);
  return value.map((raw: unknown, index): MappingRule => {
    const at = `rules[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError(`${at} in ${file} must be an object with "match".`);
    const record = raw as Record<string, unknown>;
    const unknown = Object.keys(record).find((key) => !RULE_KEYS.includes(key));
    if (unknown !== undefined) {
      throw new ConfigError(`Unknown key ${JSON.stringify(unknown)} in ${at} in ${file}. Expected any of: ${RULE_KEYS.join(', ')}.`);
    }
    const match: Record<string, MatchValue> = {};
    if (typeof record.match !== 'object' || record.match === null || Array.isArray(record.match)) {
      throw new ConfigError(`${at}.match in ${file} must be an object such as {source: github, environment: production}.`);
    }
    for (const [key, expected] of Object.entries(record.match)) {
      if (typeof expected === 'string') match[key] = expected;
      else if (Array.isArray(expected) && expected.every((item) => typeof item === 'string')) match[key] = expected as string[];
      else if (typeof expected === 'number' || typeof expected === 'boolean') match[key] = String(expected);
      else throw new ConfigError(`${at}.match.${key} in ${file} must be a string (with * wildcards) or a list of them.`);
    }
    const rule: MappingRule = { match };
    const datasets = optionalList(record.datasets, `${at}.datasets`, file);
    if (datasets) rule.datasets = datasets;
    if (record.type !== undefined) rule.type = checkType(record.type, `${at}.type`, file);
    if (record.title !== undefined) {
      if (typeof record.title !== 'string') throw new ConfigError(`${at}.title in ${file} must be a string template such as "{{repository}} to {{environment}}".`);
      rule.title = record.title;
    }
    if (record.ignore !== undefined) {
      if (typeof record.ignore !== 'boolean') throw new ConfigError(`${at}.ignore in ${file} must be true or false.`);
      rule.ignore = record.ignore;
    }
    return rule;
  });
}

const DELIVERY_KEYS: Array<keyof DeliverySettings> = ['concurrency', 'batchSize', 'burstPauseMs', 'maxAttempts', 'baseDelayMs', 'maxDelayMs', 'pollMs', 'leaseMs'];

function parseDelivery(value: unknown, file: string | undefined): Partial<DeliverySettings> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(`"delivery" in ${file} must be an object.`);
  const result: Partial<DeliverySettings> = {};
  for (const [key, setting] of Object.entries(value)) {
    if (!(DELIVERY_KEYS as string[]).includes(key)) {
      throw new ConfigError(`Unknown key ${JSON.stringify(key)} in "delivery" in ${file}. Expected any of: ${DELIVERY_KEYS.join(', ')}.`);
    }
    if (typeof setting !== 'number' || !Number.isInteger(setting) || setting <= 0) {
      throw new ConfigError(`"delivery.${key}" in ${file} must be a whole number above 0.`);
    }
    result[key as keyof DeliverySettings] = setting;
  }
  return result;
}

