import { writeFileSync } from 'node:fs';
import type { FieldType, StorageType } from '../schema.js';
import type { StagedBatch, StagedPart } from '../store/staged-batch.js';
import type { GoLayout } from './go-layout.js';
import type { IngestLimits } from './limits.js';
import { parseEventTime } from './time.js';
import { TimespanValue } from './timespan-value.js';

/** Incoming names the service sets itself; an event's own field of that name is kept as `_user_<name>`. */
export const RESERVED_FIELD_NAMES: ReadonlySet<string> = new Set(['_sysTime', '_rowId', '_cursor', '_source', '_blockInfo']);
export const TIME_FIELD = '_time';

/** An event that could not be ingested, with its time when it had a readable one. */
export interface IngestFailure {
  readonly timeMs: number;
  readonly error: string;
}

export interface BatchWriterOptions {
  readonly file: string;
  /** Ingest time: `_sysTime` of every event, and `_time` of events without one. */
  readonly nowMs: number;
  readonly timestampField: string;
  readonly timestampLayout?: GoLayout;
  readonly timestampFormat?: string;
  readonly labels?: Readonly<Record<string, unknown>>;
  /**
   * Map fields: a value under one of these (flattened) names that is an object is kept whole, as
   * one `json` value of type `object`, not flattened into a field per key (the hosted service's
   * map fields). Anything else under such a name is stored as usual.
   */
  readonly mapFields?: readonly string[];
  readonly limits: IngestLimits;
}

const STORAGE_INDEX = { integer: 0, float: 1, string: 2, boolean: 3, json: 4, timespan: 5 } as const;

interface PartState {
  readonly key: string;
  /** `,"<key>":`, the start of this part's member in a line. */
  readonly prefix: string;
  readonly field: string;
  readonly storage: StorageType;
  readonly types: Set<FieldType>;
}

interface FieldState {
  readonly name: string;
  /** The part for each storage (index by STORAGE_INDEX), made on first use. */
  readonly parts: (PartState | undefined)[];
  /** Event number that last set this field, and where in that event's pairs, to let the last value win. */
  stamp: number;
  pairIndex: number;
}

class EventFailure extends Error {}

/**
 * Turns events into a staged batch file (see StagedBatch): flattens nested objects to dotted
 * names, takes `_time` out, renames reserved names, adds labels, classifies each value's storage
 * and writes one line per event under generated keys. Events that cannot be stored become
 * failures; the others are never partly written.
 */
export class BatchWriter {
  readonly failures: IngestFailure[] = [];
  private readonly fields = new Map<string, FieldState>();
  private readonly parts: PartState[] = [];
  /** The file's bytes so far: lines are encoded as they are made, so none lives long enough to burden the garbage collector. */
  private output = Buffer.allocUnsafe(1 << 20);
  private outputLength = 0;
  private lineCount = 0;
  private readonly labelPairs: [string, unknown][] = [];
  private readonly names: string[] = [];
  private readonly values: unknown[] = [];
  /** Scratch space of line(), kept to spare the garbage collector two arrays per event. */
  private readonly live: boolean[] = [];
  private readonly states: FieldState[] = [];
  private timeValue: unknown;
  private hasTime = false;
  private eventNumber = 0;
  private longestLine = 0;
  private readonly mapFields: ReadonlySet<string>;

  constructor(private readonly options: BatchWriterOptions) {
    this.mapFields = new Set(options.mapFields ?? []);
    if (options.labels) {
      this.flatten(options.labels, '', 0);
      for (const [index, name] of this.names.entries()) {
        if (name === options.timestampField) continue;
        this.labelPairs.push([name, this.values[index]]);
      }
      this.names.length = 0;
      this.values.length = 0;
    }
  }

  get nowMs(): number {
    return this.options.nowMs;
  }

  get eventCount(): number {
    return this.lineCount;
  }

  /** Adds one decoded value as an event; `where` names it in failure messages ("line 3"). */
  add(event: unknown, where: string): void {
    if (event === null || typeof event !== 'object' || Array.isArray(event)) {
      this.fail(this.options.nowMs, `${capitalize(where)} is ${describe(event)}. Expected a JSON object with the event's fields.`);
      return;
    }
    this.names.length = 0;
    this.values.length = 0;
    this.hasTime = false;
    this.timeValue = undefined;
    let timeMs = this.options.nowMs;
    let subMsNs = 0;
    try {
      this.flatten(event as Record<string, unknown>, '', 0);
      if (this.hasTime && this.timeValue !== null) {
        const time = parseEventTime(this.timeValue, this.options.timestampField, this.options.timestampLayout, this.options.timestampFormat);
        if (typeof time === 'string') throw new EventFailure(time);
        timeMs = time.ms;
        subMsNs = time.subMsNs;
      }
      for (const [name, value] of this.labelPairs) {
        this.names.push(name);
        this.values.push(value);
      }
      const line = this.line(timeMs, subMsNs);
      if (line.length > this.longestLine) this.longestLine = line.length;
      this.append(line);
    } catch (error) {
      if (error instanceof EventFailure) this.fail(timeMs, `${capitalize(where)}: ${error.message}`);
      else if (error instanceof RangeError) this.fail(timeMs, `${capitalize(where)} is nested too deeply to store. Expected arrays nested at most a few thousand levels.`);
      else throw error;
    }
  }

  fail(timeMs: number, error: string): void {
    this.failures.push({ timeMs, error });
  }

  /** Writes the file and describes it. */
  finish(): StagedBatch {
    writeFileSync(this.options.file, this.output.subarray(0, this.outputLength));
    return {
      file: this.options.file,
      count: this.lineCount,
      // A UTF-16 code unit takes at most three bytes in UTF-8.
      maxLineBytes: this.longestLine * 3,
      parts: this.parts.map((part): StagedPart => ({ key: part.key, field: part.field, storage: part.storage, types: [...part.types] })),
      sysTimeNs: BigInt(this.options.nowMs) * 1_000_000n,
    };
  }

  private append(line: string): void {
    // A UTF-16 code unit takes at most three bytes in UTF-8, and the newline one more.
    const needed = this.outputLength + line.length * 3 + 1;
    if (needed > this.output.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.output.length * 2));
      this.output.copy(grown, 0, 0, this.outputLength);
      this.output = grown;
    }
    this.outputLength += this.output.write(line, this.outputLength, 'utf8');
    this.output[this.outputLength++] = 0x0a;
    this.lineCount++;
  }

  private flatten(object: Record<string, unknown>, prefix: string, depth: number): void {
    for (const key in object) {
      const value = object[key];
      let name = prefix === '' ? key : prefix + key;
      if (name === this.options.timestampField) {
        this.hasTime = true;
        this.timeValue = value;
        continue;
      }
      if (prefix === '' && (RESERVED_FIELD_NAMES.has(key) || key === TIME_FIELD)) name = `_user_${key}`;
      if (value === null || value === undefined) continue;
      if (typeof value === 'object' && !Array.isArray(value) && !(value instanceof TimespanValue) && depth < this.options.limits.maxNestingDepth && !this.mapFields.has(name)) {
        this.flatten(value as Record<string, unknown>, `${name}.`, depth + 1);
        continue;
      }
      this.names.push(name);
      this.values.push(value);
    }
  }

  private line(timeMs: number, subMsNs: number): string {
    const eventNumber = ++this.eventNumber;
    const { names, values, live, states } = this;
    live.length = 0;
    states.length = 0;
    // Check everything before assigning any part key, so a failing event leaves no trace.
    for (let i = 0; i < names.length; i++) {
      const kind = typeof values[i];
      if (kind !== 'string' && kind !== 'number' && kind !== 'boolean' && kind !== 'object') {
        throw new EventFailure(`Field ${JSON.stringify(names[i])} has a value of type ${kind}. Expected JSON values only.`);
      }
      const state = this.field(names[i] as string);
      // The last value of a name wins (a dotted key and a nested object can both spell `a.b`).
      if (state.stamp === eventNumber) live[state.pairIndex] = false;
      state.stamp = eventNumber;
      state.pairIndex = i;
      states.push(state);
      live.push(true);
    }
    let line = '{"r":' + this.lineCount + ',"t":' + timeMs + ',"n":' + subMsNs;
    for (let i = 0; i < names.length; i++) {
      if (live[i]) line += this.encode(states[i] as FieldState, values[i]);
    }
    return line + '}';
  }

  /** `,"<part key>":<value>` for one field value. */
  private encode(state: FieldState, value: unknown): string {
    switch (typeof value) {
      case 'string':
        return this.part(state, 'string', 'string').prefix + jsonString(value);
      case 'number':
        if (Number.isSafeInteger(value)) return this.part(state, 'integer', 'integer').prefix + value;
        return this.part(state, 'float', 'float').prefix + (Number.isFinite(value) ? value : 'null');
      case 'boolean':
        return this.part(state, 'boolean', 'boolean').prefix + (value ? 'true' : 'false');
      default:
        if (value instanceof TimespanValue) return this.part(state, 'timespan', 'timespan').prefix + value.ns.toString();
        return this.part(state, 'json', Array.isArray(value) ? 'array' : 'object').prefix + JSON.stringify(JSON.stringify(value));
    }
  }

  private field(name: string): FieldState {
    let state = this.fields.get(name);
    if (!state) {
      if (name.length > this.options.limits.maxFieldNameLength) {
        throw new EventFailure(`The field name ${JSON.stringify(`${name.slice(0, 64)}…`)} has ${name.length} characters. Expected at most ${this.options.limits.maxFieldNameLength}.`);
      }
      if (this.fields.size >= this.options.limits.maxFieldsPerRequest) {
        throw new EventFailure(
          `The request already has ${this.options.limits.maxFieldsPerRequest} distinct fields, so the event's new field ${JSON.stringify(name.slice(0, 64))} cannot be added. Expected at most ${this.options.limits.maxFieldsPerRequest} distinct fields per request.`,
        );
      }
      state = { name: name.isWellFormed() ? name : name.toWellFormed(), parts: [], stamp: 0, pairIndex: 0 };
      this.fields.set(name, state);
    }
    return state;
  }

  private part(state: FieldState, storage: StorageType, type: FieldType): PartState {
    const index = STORAGE_INDEX[storage as keyof typeof STORAGE_INDEX];
    let part = state.parts[index];
    if (part === undefined) {
      const key = `c${this.parts.length}`;
      part = { key, prefix: `,"${key}":`, field: state.name, storage, types: new Set() };
      state.parts[index] = part;
      this.parts.push(part);
    }
    if (!part.types.has(type)) part.types.add(type);
    return part;
  }
}


/** What JSON.stringify escapes in a string (quote, backslash, controls), and surrogates, which may be lone. */
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as a JSON string literal, well-formed; most strings need no escaping and skip JSON.stringify. */
function jsonString(value: string): string {
  if (!NEEDS_ESCAPING.test(value)) return `"${value}"`;
  return JSON.stringify(value.isWellFormed() ? value : value.toWellFormed());
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `${typeof value === 'object' ? 'an object' : `the ${typeof value} ${JSON.stringify(value)}`}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
