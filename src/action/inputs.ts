import { parseServiceUrl } from '../client/transport.js';
import { checkDatasetNames, checkLength, checkOrder, checkType } from '../common/annotation-contract.js';
import { parseDuration } from '../common/duration.js';
import { InputError } from '../common/errors.js';
import { parseSignal } from '../impact/signals.js';
import { parseNameList } from '../common/name-list.js';
import { formatTime, parseTimeInput } from '../common/time.js';
import { CLOSE_ON, INPUT, JOB_STATUSES, LIMITS, MODES, type CloseOn, type JobStatus, type Mode } from './constants.js';

/**
 * Where inputs come from. The runner gives `@actions/core`; tests give a plain record. Reading
 * through this keeps this module the only reader of inputs without it importing the toolkit.
 */
export interface InputSource {
  /** The input's value, trimmed; "" when not given. */
  getInput(name: string): string;
  /** Masks a value in every later log line. */
  setSecret(value: string): void;
  debug(message: string): void;
}

export interface ServiceInputs {
  url: string;
  /** Absent only in a dry run, which sends nothing. */
  token: string | undefined;
  orgId: string | undefined;
  timeoutMs: number;
  retries: number;
}

/** Annotation fields as given; times already normalised to RFC 3339 UTC. */
export interface FieldInputs {
  datasets: string[] | undefined;
  type: string | undefined;
  time: string | undefined;
  endTime: string | undefined;
  title: string | undefined;
  description: string | undefined;
  url: string | undefined;
}

/** The deploy gate: the impact of the span, measured once it has ended (span and close modes). */
export interface GateInputs {
  dataset: string;
  /** APL aggregations, one per line of impact-signals; none means the default signals. */
  signals: string[];
  windowMs: number;
  failOnRegression: boolean;
}

export interface ActionInputs {
  mode: Mode;
  id: string | undefined;
  service: ServiceInputs;
  fields: FieldInputs;
  closeOn: CloseOn;
  jobStatus: JobStatus | undefined;
  failOnError: boolean;
  dryRun: boolean;
  /** Absent unless impact-dataset is given. */
  gate: GateInputs | undefined;
}

const FIELD_INPUTS = [INPUT.datasets, INPUT.type, INPUT.time, INPUT.endTime, INPUT.title, INPUT.description, INPUT.link] as const;

/**
 * Reads, normalises and validates every input before any request is made, so a typo fails in
 * milliseconds with a sentence naming the input rather than as a service error.
 */
export function getInputs(source: InputSource, now: number = Date.now()): ActionInputs {
  // Masked before anything else is read, so that no later log line can carry it.
  const token = optional(source, INPUT.token);
  if (token !== undefined) source.setSecret(token);

  const failOnError = getFailOnError(source);
  const dryRun = booleanInput(source, INPUT.dryRun);
  const id = optional(source, INPUT.id);
  const mode = modeInput(source, id);
  const fields = fieldInputs(source, now);
  checkModeNeeds(mode, id, fields);

  if (token === undefined && !dryRun) {
    throw new InputError(`Missing ${INPUT.token}. Expected an API token (xaat-…) or a personal token (xapt-…), e.g. \${{ secrets.AXIOM_TOKEN }}.`);
  }
  const service: ServiceInputs = {
    url: serviceUrlInput(source),
    token,
    orgId: optional(source, INPUT.orgId),
    timeoutMs: integerInput(source, INPUT.timeoutMs, 1, LIMITS.timeoutMs),
    retries: integerInput(source, INPUT.retries, 0, LIMITS.retries),
  };

  const inputs: ActionInputs = {
    mode,
    id,
    service,
    fields,
    closeOn: requiredInput(INPUT.closeOn, choiceInput(source, INPUT.closeOn, CLOSE_ON), `one of: ${CLOSE_ON.join(', ')}`),
    jobStatus: choiceInput(source, INPUT.jobStatus, JOB_STATUSES),
    failOnError,
    dryRun,
    gate: gateInputs(source, mode),
  };
  source.debug(`Inputs: ${JSON.stringify({ ...inputs, service: { ...service, token: token === undefined ? undefined : '***' } })}`);
  return inputs;
}

/**
 * Read on its own as well, so that even an invalid input elsewhere is reported the way the
 * workflow asked (a warning when failOnError is false).
 */
export function getFailOnError(source: InputSource): boolean {
  return booleanInput(source, INPUT.failOnError);
}

function fieldInputs(source: InputSource, now: number): FieldInputs {
  const datasetsText = optional(source, INPUT.datasets);
  const typeText = optional(source, INPUT.type);
  const type = typeText === undefined ? undefined : checkType(INPUT.type, typeText);
  const time = timeInput(source, INPUT.time, now);
  const endTime = timeInput(source, INPUT.endTime, now);
  if (time !== undefined && endTime !== undefined) checkOrder(INPUT.time, Date.parse(time), INPUT.endTime, Date.parse(endTime));
  return {
    datasets: datasetsText === undefined ? undefined : parseNameList(INPUT.datasets, [datasetsText]),
    type,
    time,
    endTime,
    title: textInput(source, INPUT.title, 'title'),
    description: textInput(source, INPUT.description, 'description'),
    // Any text, as on the hosted service: the official clients send relative links and plain words.
    url: textInput(source, INPUT.link, 'url'),
  };
}

/**
 * The gate is asked for by naming the dataset whose events show the change. impact-window and
 * fail-on-regression have defaults in action.yml, so they are read (and checked) either way.
 */
function gateInputs(source: InputSource, mode: Mode): GateInputs | undefined {
  const dataset = optional(source, INPUT.impactDataset);
  const signalsText = optional(source, INPUT.impactSignals);
  const failOnRegression = booleanInput(source, INPUT.failOnRegression);
  const windowText = requiredInput(INPUT.impactWindow, optional(source, INPUT.impactWindow), 'a duration such as "10m"');
  const windowMs = parseDuration(INPUT.impactWindow, windowText);
  if (dataset === undefined) {
    if (signalsText !== undefined || failOnRegression) {
      throw new InputError(
        `Missing ${INPUT.impactDataset}. Expected the dataset whose events show the change's impact, e.g. "production"; ${signalsText !== undefined ? INPUT.impactSignals : `${INPUT.failOnRegression}: true`} needs it.`,
      );
    }
    return undefined;
  }
  if (mode !== 'span' && mode !== 'close') {
    throw new InputError(`Invalid ${INPUT.impactDataset} ${JSON.stringify(dataset)} with ${INPUT.mode} ${mode}. Expected mode span or close: the impact is measured after a span ends.`);
  }
  const [name = dataset] = checkDatasetNames(INPUT.impactDataset, [dataset]);
  const signals = (signalsText ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  // Checked now, so that a typo fails before the deploy rather than after it.
  signals.forEach((signal, index) => parseSignal(`${INPUT.impactSignals} line ${index + 1}`, signal));
  return { dataset: name, signals, windowMs, failOnRegression };
}

function checkModeNeeds(mode: Mode, id: string | undefined, fields: FieldInputs): void {
  if (mode === 'create' || mode === 'span') {
    if (id !== undefined) {
      throw new InputError(`Invalid ${INPUT.id} ${JSON.stringify(id)} with ${INPUT.mode} ${mode}. Expected no id (to change an existing annotation, use mode update or close).`);
    }
    if (fields.datasets === undefined) {
      throw new InputError(`Missing ${INPUT.datasets}. Expected a comma- or newline-separated list of dataset names, e.g. "production"; ${mode} mode needs it.`);
    }
    if (fields.type === undefined) {
      throw new InputError(`Missing ${INPUT.type}. Expected lowercase letters, digits and dashes, e.g. "production-release"; ${mode} mode needs it.`);
    }
  } else if (id === undefined) {
    throw new InputError(`Missing ${INPUT.id}. Expected the id of an existing annotation, e.g. \${{ steps.deploy-mark.outputs.id }}; ${mode} mode needs it.`);
  }
  if (mode === 'span' && fields.endTime !== undefined) {
    throw new InputError(
      `Invalid ${INPUT.endTime} ${JSON.stringify(fields.endTime)} with ${INPUT.mode} span. Expected no endTime: the span ends when the job ends (use mode create for a span with a known end).`,
    );
  }
  if (mode === 'update' && FIELD_INPUTS.every((name) => fields[fieldKey(name)] === undefined)) {
    throw new InputError(`Nothing to update in annotation ${JSON.stringify(id)}. Expected at least one of: ${FIELD_INPUTS.join(', ')}.`);
  }
}

function fieldKey(name: (typeof FIELD_INPUTS)[number]): keyof FieldInputs {
  return name === INPUT.link ? 'url' : name;
}

function modeInput(source: InputSource, id: string | undefined): Mode {
  // Without a mode, an id can only mean "change that annotation".
  return choiceInput(source, INPUT.mode, MODES) ?? (id === undefined ? 'create' : 'update');
}

function serviceUrlInput(source: InputSource): string {
  const url = requiredInput(INPUT.url, optional(source, INPUT.url), 'an http:// or https:// address such as https://api.axiom.co');
  parseServiceUrl(url, INPUT.url);
  return url;
}

function timeInput(source: InputSource, name: string, now: number): string | undefined {
  const text = optional(source, name);
  return text === undefined ? undefined : formatTime(parseTimeInput(name, text, now));
}

function textInput(source: InputSource, name: string, field: 'title' | 'description' | 'url'): string | undefined {
  const text = optional(source, name);
  return text === undefined ? undefined : checkLength(name, text, field);
}

function integerInput(source: InputSource, name: string, min: number, max: number): number {
  const text = requiredInput(name, optional(source, name), `a whole number from ${min} to ${max}`);
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new InputError(`Invalid ${name} ${JSON.stringify(text)}. Expected a whole number from ${min} to ${max}.`);
  }
  return value;
}

function booleanInput(source: InputSource, name: string): boolean {
  const text = requiredInput(name, optional(source, name), 'true or false');
  // The spellings of YAML 1.2's core schema, as @actions/core's getBooleanInput accepts.
  if (['true', 'True', 'TRUE'].includes(text)) return true;
  if (['false', 'False', 'FALSE'].includes(text)) return false;
  throw new InputError(`Invalid ${name} ${JSON.stringify(text)}. Expected true or false.`);
}

function choiceInput<T extends string>(source: InputSource, name: string, choices: readonly T[]): T | undefined {
  const text = optional(source, name);
  if (text === undefined) return undefined;
  const match = choices.find((choice) => choice === text.toLowerCase());
  if (match === undefined) {
    throw new InputError(`Invalid ${name} ${JSON.stringify(text)}. Expected one of: ${choices.join(', ')}.`);
  }
  return match;
}

/**
 * For inputs whose default is in action.yml: the runner always passes it, so an empty value
 * means the workflow blanked it on purpose (an unset variable, say), and guessing would hide that.
 */
function requiredInput<T>(name: string, value: T | undefined, expected: string): T {
  if (value === undefined) throw new InputError(`Missing ${name}: it is empty. Expected ${expected} (leave it out to get the default).`);
  return value;
}

function optional(source: InputSource, name: string): string | undefined {
  const value = source.getInput(name).trim();
  return value === '' ? undefined : value;
}
