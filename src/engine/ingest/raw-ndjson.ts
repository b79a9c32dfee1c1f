import { isUtf8 } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import type { FieldType, StorageType } from '../schema.js';
import { quoteIdentifier, quoteString } from '../sql/quote.js';
import { STAGED_FILE_COLUMN, type StagedBatch, type StagedPart } from '../store/staged-batch.js';
import { RESERVED_FIELD_NAMES, TIME_FIELD } from './batch-writer.js';
import type { IngestLimits } from './limits.js';
import { parseEventTime } from './time.js';

/**
 * The raw NDJSON path: DuckDB's read_json parses the request's own lines, so JavaScript never
 * parses a value. One structural pass over the bytes checks that every line is an event the
 * JavaScript decoder (BatchWriter) would store whole and exactly as DuckDB reads it, works out
 * each field's parts in the order the decoder would make them, and parses `_time` with the same
 * function. Each line is copied to the staged file with three generated members first (event
 * index, time in ms, nanoseconds within the ms); DuckDB ignores the members it is not asked for.
 *
 * The pass is conservative: anything it is not sure DuckDB reads exactly as the decoder would
 * (any failed event, escapes `\u`, odd keys, types mixed within a field, arrays holding objects
 * or non-integer numbers, …; see src/engine/README.md) makes it give up, and the caller decodes
 * the body in JavaScript instead.
 */

/** Object levels the raw path follows (the decoder flattens 32; deeper bodies take the decoder). */
const MAX_DEPTH = 8;
/** Distinct keys (at every level) of one body the raw path takes on; never more than the request's distinct fields limit. */
const MAX_NODES = 1000;
/** Generated top-level members; a body with a top-level key equal to one of them in any case takes the decoder. */
const INDEX_KEY = '__tm_r';
const TIME_MS_KEY = '__tm_t';
const TIME_NS_KEY = '__tm_n';
const GENERATED_KEYS = new Set([INDEX_KEY, TIME_MS_KEY, TIME_NS_KEY, STAGED_FILE_COLUMN]);
const MAX_SAFE = 9_007_199_254_740_991;
const HEAD_INDEX = Buffer.from(`{"${INDEX_KEY}":`, 'latin1');
const HEAD_TIME_MS = Buffer.from(`,"${TIME_MS_KEY}":`, 'latin1');
const HEAD_TIME_NS = Buffer.from(`,"${TIME_NS_KEY}":`, 'latin1');
const HEAD_KEYS_BYTES = HEAD_INDEX.length + HEAD_TIME_MS.length + HEAD_TIME_NS.length + 1;

// What a field's values have been in the body.
const SEEN_STRING = 1;
/** An integer literal of at most 15 digits: safe, and a BIGINT as DuckDB reads it. */
const SEEN_INT_LITERAL = 2;
/** A number literal the decoder stores as an integer but that DuckDB must read as a DOUBLE (`2.0`, `1e3`, 16+ digits). */
const SEEN_INT_OTHER = 4;
const SEEN_FLOAT = 8;
const SEEN_BOOLEAN = 16;
const SEEN_ARRAY = 32;
const SEEN_NUMBER = SEEN_INT_LITERAL | SEEN_INT_OTHER | SEEN_FLOAT;
/** An object (possibly `{}`): never mixed with the others. */
const SEEN_OBJECT = 64;

/** Thrown inside the pass when the body must take the decoder. */
class NotRaw extends Error {}
const NOT_RAW = new NotRaw();

interface Node {
  readonly key: string;
  readonly keyBytes: Buffer;
  /** Position among its parent's children. */
  readonly index: number;
  /** The child whose key is expected next (keys tend to come in the same order in every event). */
  next: number;
  /** The field name the decoder gives it: dotted, `_user_`-prefixed when reserved at the top. */
  readonly name: string;
  readonly depth: number;
  readonly children: Map<string, Node>;
  /** The order of first appearance of the children. */
  readonly order: Node[];
  seen: number;
  /** Event number that last set this key, to catch duplicate keys. */
  stamp: number;
  /** Order in which the decoder would make this field's integer, float, string, boolean, json parts. */
  partOrder: [number, number, number, number, number];
}

const PART_INTEGER = 0;
const PART_FLOAT = 1;
const PART_STRING = 2;
const PART_BOOLEAN = 3;
const PART_JSON = 4;

export interface RawStageContext {
  readonly file: string;
  readonly nowMs: number;
  readonly limits: IngestLimits;
}

/**
 * Stages a decompressed NDJSON body for read_json as it is, or returns undefined when the body
 * must take the JavaScript decoder. Only for the default time field, no time layout and no labels.
 */
export function stageRawNdjson(bytes: Uint8Array, context: RawStageContext): StagedBatch | undefined {
  if (bytes.length === 0 || !isUtf8(bytes)) return undefined;
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const scanner = new Scanner(buffer, context);
  try {
    return scanner.run();
  } catch (error) {
    if (error instanceof NotRaw) return undefined;
    throw error;
  }
}

class Scanner {
  private pos = 0;
  private event = 0;
  private nodeCount = 0;
  private partCount = 0;
  private readonly root: Node = newNode('', '', 0, 0);
  private timeMs = 0;
  private subMsNs = 0;
  private output: Buffer;
  private outputLength = 0;
  private longestLine = 0;
  private lineEnd = 0;
  /** Where the next backslash at or after the current string is (bytes.length when none). */
  private backslash = -1;

  constructor(
    private readonly bytes: Buffer,
    private readonly context: RawStageContext,
  ) {
    // The body's lines grow by the generated members, about 45 bytes each.
    this.output = outputBuffer(bytes.length + (bytes.length >>> 2) + 64 * 1024);
  }

  run(): StagedBatch | undefined {
    const { bytes } = this;
    const length = bytes.length;
    // Control characters other than the line feed (CRLF lines, tabs, raw controls within
    // strings, which make a line invalid) are left to the decoder: past this check, a string's
    // end is found with indexOf.
    if (hasControl(bytes)) throw NOT_RAW;
    while (this.pos < length) {
      let lineEnd = bytes.indexOf(0x0a, this.pos);
      if (lineEnd === -1) lineEnd = length;
      this.lineEnd = lineEnd;
      this.skipSpace();
      // Blank lines are skipped by the decoder: only a final newline is taken here.
      if (this.pos === lineEnd) throw NOT_RAW;
      if (bytes[this.pos] !== 0x7b) throw NOT_RAW;
      if (this.event >= this.context.limits.maxEventsPerRequest) throw NOT_RAW;
      const open = this.pos;
      this.event++;
      this.timeMs = this.context.nowMs;
      this.subMsNs = 0;
      const empty = this.object(this.root);
      this.skipSpace();
      if (this.pos !== lineEnd) throw NOT_RAW;
      this.writeLine(open, lineEnd, empty);
      this.pos = lineEnd + 1;
    }
    if (this.event === 0) throw NOT_RAW;
    return this.finish();
  }

  private writeLine(open: number, lineEnd: number, empty: boolean): void {
    // Generated keys and three integers (at most 20 characters each), then the line after its `{`.
    const needed = this.outputLength + HEAD_KEYS_BYTES + 3 * 20 + (lineEnd - open) + 1;
    if (needed > this.output.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.output.length * 2));
      grown.set(this.output.subarray(0, this.outputLength));
      this.output = grown;
    }
    const { output } = this;
    const start = this.outputLength;
    let at = start;
    output.set(HEAD_INDEX, at);
    at = writeInteger(output, at + HEAD_INDEX.length, this.event - 1);
    output.set(HEAD_TIME_MS, at);
    at = writeInteger(output, at + HEAD_TIME_MS.length, this.timeMs);
    output.set(HEAD_TIME_NS, at);
    at = writeInteger(output, at + HEAD_TIME_NS.length, this.subMsNs);
    if (empty) {
      output[at++] = 0x7d;
    } else {
      output[at++] = 0x2c;
      output.set(this.bytes.subarray(open + 1, lineEnd), at);
      at += lineEnd - open - 1;
    }
    output[at++] = 0x0a;
    this.outputLength = at;
    if (at - start > this.longestLine) this.longestLine = at - start;
  }

  private skipSpace(): void {
    const { bytes } = this;
    let c = bytes[this.pos];
    while (c === 0x20) c = bytes[++this.pos];
  }

  /** At `{`: reads an object's members into `node`'s children; true when it has none. */
  private object(node: Node): boolean {
    const { bytes } = this;
    this.pos++;
    node.next = 0;
    this.skipSpace();
    if (bytes[this.pos] === 0x7d) {
      this.pos++;
      return true;
    }
    for (;;) {
      if (bytes[this.pos] !== 0x22) throw NOT_RAW;
      const child = this.child(node);
      const key = child.key;
      if (child.stamp === this.event) throw NOT_RAW;
      child.stamp = this.event;
      this.skipSpace();
      if (bytes[this.pos] !== 0x3a) throw NOT_RAW;
      this.pos++;
      this.skipSpace();
      if (node === this.root && key === TIME_FIELD) this.time();
      else this.value(child);
      this.skipSpace();
      const c = bytes[this.pos];
      this.pos++;
      if (c === 0x7d) return false;
      if (c !== 0x2c) throw NOT_RAW;
      this.skipSpace();
    }
  }

  /**
   * At `"`: the child of `node` a key names: printable ASCII other than `"` and `\`, not starting
   * with a digit. Keys are compared as bytes, the one that followed the previous key tried first.
   */
  private child(node: Node): Node {
    const { bytes } = this;
    const start = ++this.pos;
    const { order } = node;
    // Most keys are the one that followed the previous key in the last event: compared in place.
    // A stored key was checked when it was first read, so an exact match needs no more checks.
    const expected = order[node.next];
    if (expected !== undefined) {
      const key = expected.keyBytes;
      const end = start + key.length;
      if (bytes[end] === 0x22 && sameKey(key, bytes, start, end)) {
        this.pos = end + 1;
        node.next = expected.index + 1;
        return expected;
      }
    }
    let c = bytes[this.pos];
    if (c === undefined || (c >= 0x30 && c <= 0x39)) throw NOT_RAW;
    while (c !== 0x22) {
      if (c === undefined || c < 0x20 || c > 0x7e || c === 0x5c) throw NOT_RAW;
      c = bytes[++this.pos];
    }
    const end = this.pos;
    this.pos++;
    if (end === start) throw NOT_RAW;
    let found: Node | undefined;
    for (const candidate of order) {
      if (sameKey(candidate.keyBytes, bytes, start, end)) {
        found = candidate;
        break;
      }
    }
    found ??= this.addChild(node, bytes.toString('latin1', start, end));
    node.next = found.index + 1;
    return found;
  }

  private addChild(node: Node, key: string): Node {
    if (++this.nodeCount > Math.min(MAX_NODES, this.context.limits.maxFieldsPerRequest) || node.depth >= MAX_DEPTH) throw NOT_RAW;
    let name: string;
    if (node === this.root) {
      if (GENERATED_KEYS.has(key.toLowerCase())) throw NOT_RAW;
      name = RESERVED_FIELD_NAMES.has(key) || key === TIME_FIELD ? `_user_${key}` : key;
    } else {
      name = `${node.name}.${key}`;
    }
    if (name.length > this.context.limits.maxFieldNameLength) throw NOT_RAW;
    const child = newNode(key, name, node.depth + 1, node.order.length);
    node.children.set(key, child);
    node.order.push(child);
    return child;
  }

  /** `_time` at the top: parsed here, by the decoder's own function. */
  private time(): void {
    const { bytes } = this;
    const c = bytes[this.pos];
    let value: string | number;
    if (c === 0x22) {
      const start = this.pos + 1;
      if (this.string()) throw NOT_RAW;
      if (this.pos - 1 - start === 24 && this.isoMillis(start)) return;
      value = bytes.toString('utf8', start, this.pos - 1);
    } else if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) {
      const start = this.pos;
      this.number();
      value = Number(bytes.toString('latin1', start, this.pos));
    } else if (c === 0x6e) {
      this.literal('null');
      return;
    } else {
      throw NOT_RAW;
    }
    const time = parseEventTime(value, TIME_FIELD, undefined, undefined);
    if (typeof time === 'string') throw NOT_RAW;
    this.timeMs = time.ms;
    this.subMsNs = time.subMsNs;
  }

  /**
   * The usual `2024-01-15T14:00:00.123Z` read straight from the bytes, when its fields are well
   * inside the ranges parseEventTime checks (so that it gives the same instant); false to leave
   * the value to parseEventTime.
   */
  private isoMillis(at: number): boolean {
    const b = this.bytes;
    if (b[at + 4] !== 0x2d || b[at + 7] !== 0x2d || b[at + 10] !== 0x54 || b[at + 13] !== 0x3a || b[at + 16] !== 0x3a || b[at + 19] !== 0x2e || b[at + 23] !== 0x5a) return false;
    const year = digits(b, at, 4);
    const month = digits(b, at + 5, 2);
    const day = digits(b, at + 8, 2);
    const hour = digits(b, at + 11, 2);
    const minute = digits(b, at + 14, 2);
    const second = digits(b, at + 17, 2);
    const millis = digits(b, at + 20, 3);
    if (year < 1700 || year > 2200 || month < 1 || month > 12 || day < 1 || day > 28 || hour > 23 || minute > 59 || second > 59 || millis < 0) return false;
    this.timeMs = Date.UTC(year, month - 1, day, hour, minute, second, millis);
    this.subMsNs = 0;
    return true;
  }

  private value(node: Node): void {
    const { bytes } = this;
    const c = bytes[this.pos];
    switch (c) {
      case 0x22:
        this.string();
        this.see(node, SEEN_STRING, PART_STRING);
        return;
      case 0x7b:
        if (node.seen !== 0 && node.seen !== SEEN_OBJECT) throw NOT_RAW;
        node.seen = SEEN_OBJECT;
        this.object(node);
        return;
      case 0x5b:
        this.array(0);
        this.see(node, SEEN_ARRAY, PART_JSON);
        return;
      case 0x74:
        this.literal('true');
        this.see(node, SEEN_BOOLEAN, PART_BOOLEAN);
        return;
      case 0x66:
        this.literal('false');
        this.see(node, SEEN_BOOLEAN, PART_BOOLEAN);
        return;
      case 0x6e:
        this.literal('null');
        return;
      default: {
        const kind = this.number();
        if (kind === SEEN_FLOAT) this.see(node, SEEN_FLOAT, PART_FLOAT);
        else this.see(node, kind, PART_INTEGER);
      }
    }
  }

  private see(node: Node, seen: number, part: number): void {
    const before = node.seen;
    if (before === SEEN_OBJECT) throw NOT_RAW;
    if (before !== 0 && (before & SEEN_NUMBER ? (seen & SEEN_NUMBER) === 0 : before !== seen)) throw NOT_RAW;
    node.seen = before | seen;
    if (node.partOrder[part] === -1) node.partOrder[part] = this.partCount++;
  }

  private literal(text: string): void {
    const { bytes } = this;
    for (let i = 0; i < text.length; i++) {
      if (bytes[this.pos + i] !== text.charCodeAt(i)) throw NOT_RAW;
    }
    this.pos += text.length;
  }

  /** At `"`: skips a string with only short escapes (no `\u`) and no control characters; true when it had escapes. */
  private string(): boolean {
    const { bytes } = this;
    const start = this.pos + 1;
    const quote = bytes.indexOf(0x22, start);
    if (quote === -1 || quote >= this.lineEnd) throw NOT_RAW;
    if (this.backslash < start) {
      this.backslash = bytes.indexOf(0x5c, start);
      if (this.backslash === -1) this.backslash = bytes.length;
    }
    if (this.backslash > quote) {
      this.pos = quote + 1;
      return false;
    }
    let escaped = false;
    let c = bytes[++this.pos];
    while (c !== 0x22) {
      if (this.pos >= this.lineEnd) throw NOT_RAW;
      if (c === 0x5c) {
        const next = bytes[++this.pos];
        // \" \\ \/ \b \f \n \r \t
        if (next !== 0x22 && next !== 0x5c && next !== 0x2f && next !== 0x62 && next !== 0x66 && next !== 0x6e && next !== 0x72 && next !== 0x74) throw NOT_RAW;
        escaped = true;
      }
      c = bytes[++this.pos];
    }
    this.pos++;
    return escaped;
  }

  /**
   * A number by JSON's grammar; how the decoder stores it: SEEN_INT_LITERAL (an integer literal of
   * at most 15 digits), SEEN_INT_OTHER (any other literal whose value is a safe integer) or SEEN_FLOAT.
   */
  private number(): number {
    const { bytes } = this;
    const start = this.pos;
    let c = bytes[this.pos];
    if (c === 0x2d) c = bytes[++this.pos];
    const digitsStart = this.pos;
    if (c === 0x30) {
      c = bytes[++this.pos];
    } else if (c !== undefined && c >= 0x31 && c <= 0x39) {
      do c = bytes[++this.pos];
      while (c !== undefined && c >= 0x30 && c <= 0x39);
    } else {
      throw NOT_RAW;
    }
    let digits = this.pos - digitsStart;
    let fraction = false;
    let nonZeroFraction = false;
    if (c === 0x2e) {
      fraction = true;
      c = bytes[++this.pos];
      if (c === undefined || c < 0x30 || c > 0x39) throw NOT_RAW;
      const fractionStart = this.pos;
      do {
        if (c !== 0x30) nonZeroFraction = true;
        c = bytes[++this.pos];
      } while (c !== undefined && c >= 0x30 && c <= 0x39);
      digits += this.pos - fractionStart;
    }
    if (c !== 0x65 && c !== 0x45) {
      if (digits <= 15) {
        if (!fraction) return SEEN_INT_LITERAL;
        // With at most 15 significant digits a value with a non-zero fraction is never within
        // half a double's spacing of an integer, so it reads as a non-integer, as Number() would.
        return nonZeroFraction ? SEEN_FLOAT : SEEN_INT_OTHER;
      }
    } else {
      c = bytes[++this.pos];
      if (c === 0x2b || c === 0x2d) c = bytes[++this.pos];
      if (c === undefined || c < 0x30 || c > 0x39) throw NOT_RAW;
      do c = bytes[++this.pos];
      while (c !== undefined && c >= 0x30 && c <= 0x39);
    }
    const value = Number(bytes.toString('latin1', start, this.pos));
    // The decoder would store an infinite value as null in a float part: left to it.
    if (!Number.isFinite(value)) throw NOT_RAW;
    return Number.isInteger(value) && Math.abs(value) <= MAX_SAFE ? SEEN_INT_OTHER : SEEN_FLOAT;
  }

  /**
   * At `[`: an array DuckDB writes back exactly as JSON.stringify would: strings without escapes,
   * integer literals of at most 15 digits other than `-0`, booleans, null, and such arrays.
   */
  private array(depth: number): void {
    const { bytes } = this;
    if (depth >= MAX_DEPTH) throw NOT_RAW;
    this.pos++;
    this.skipSpace();
    if (bytes[this.pos] === 0x5d) {
      this.pos++;
      return;
    }
    for (;;) {
      const c = bytes[this.pos];
      if (c === 0x22) {
        if (this.string()) throw NOT_RAW;
      } else if (c === 0x5b) {
        this.array(depth + 1);
      } else if (c === 0x74) {
        this.literal('true');
      } else if (c === 0x66) {
        this.literal('false');
      } else if (c === 0x6e) {
        this.literal('null');
      } else {
        const start = this.pos;
        if (this.number() !== SEEN_INT_LITERAL) throw NOT_RAW;
        if (bytes[start] === 0x2d && bytes[start + 1] === 0x30) throw NOT_RAW;
      }
      this.skipSpace();
      const next = bytes[this.pos];
      this.pos++;
      if (next === 0x5d) return;
      if (next !== 0x2c) throw NOT_RAW;
      this.skipSpace();
    }
  }

  private finish(): StagedBatch {
    const columns: string[] = [
      `${quoteString(INDEX_KEY)}: 'BIGINT'`,
      `${quoteString(TIME_MS_KEY)}: 'BIGINT'`,
      `${quoteString(TIME_NS_KEY)}: 'BIGINT'`,
    ];
    const select: string[] = [`${quoteIdentifier(INDEX_KEY)} AS r`, `${quoteIdentifier(TIME_MS_KEY)} AS t`, `${quoteIdentifier(TIME_NS_KEY)} AS n`];
    const parts: { order: number; part: StagedPart; expression: string }[] = [];
    const names = new Set<string>();
    const walk = (node: Node, expression: (key: string) => string): void => {
      checkCaseCollisions(node);
      for (const child of node.order) {
        const own = expression(child.key);
        if (child.children.size > 0) {
          walk(child, (key) => `struct_extract(${own}, ${quoteString(key)})`);
          continue;
        }
        if (child.seen === 0 || child.seen === SEEN_OBJECT) continue;
        if (names.has(child.name)) throw NOT_RAW;
        names.add(child.name);
        const add = (slot: number, storage: StorageType, type: FieldType, value: string): void => {
          const order = child.partOrder[slot] as number;
          if (order !== -1) parts.push({ order, part: { key: '', field: child.name, storage, types: [type] }, expression: value });
        };
        if ((child.seen & SEEN_NUMBER) === 0 || (child.seen & (SEEN_INT_OTHER | SEEN_FLOAT)) === 0) {
          const storage: StorageType = child.seen & SEEN_STRING ? 'string' : child.seen & SEEN_BOOLEAN ? 'boolean' : child.seen & SEEN_ARRAY ? 'json' : 'integer';
          const slot = { string: PART_STRING, boolean: PART_BOOLEAN, json: PART_JSON, integer: PART_INTEGER }[storage as 'string'];
          add(slot, storage, storage === 'json' ? 'array' : (storage as FieldType), own);
        } else {
          // Read as DOUBLE; the decoder's integers are the whole values within the safe range.
          const whole = `(${own} = trunc(${own}) AND abs(${own}) <= ${MAX_SAFE})`;
          add(PART_INTEGER, 'integer', 'integer', `CASE WHEN ${whole} THEN CAST(${own} AS BIGINT) END`);
          add(PART_FLOAT, 'float', 'float', `CASE WHEN ${whole} THEN NULL ELSE ${own} END`);
        }
      }
    };
    walk(this.root, (key) => quoteIdentifier(key));
    for (const child of this.root.order) {
      if (child.key === TIME_FIELD) continue;
      columns.push(`${quoteString(child.key)}: ${quoteString(sqlType(child))}`);
    }
    parts.sort((a, b) => a.order - b.order);
    const staged: StagedPart[] = parts.map(({ part }, index) => ({ ...part, key: `c${index}` }));
    parts.forEach(({ expression }, index) => select.push(`${expression} AS c${index}`));
    writeFileSync(this.context.file, this.output.subarray(0, this.outputLength));
    if (this.output.length <= MAX_SPARE_OUTPUT_BYTES) spareOutput = this.output;
    return {
      file: this.context.file,
      count: this.event,
      maxLineBytes: this.longestLine,
      parts: staged,
      sysTimeNs: BigInt(this.context.nowMs) * 1_000_000n,
      raw: { columns, select },
    };
  }
}

function newNode(key: string, name: string, depth: number, index: number): Node {
  return { key, keyBytes: Buffer.from(key, 'latin1'), name, depth, index, next: 0, children: new Map(), order: [], seen: 0, stamp: 0, partOrder: [-1, -1, -1, -1, -1] };
}

/**
 * Whether the bytes hold a control character other than the line feed. Four bytes at a time:
 * `(w - 0x20202020) & ~w & 0x80808080` is non-zero whenever a byte of w is below 0x20 (and
 * sometimes when none is), and only then are the four bytes looked at one by one.
 */
export function hasControl(bytes: Buffer): boolean {
  const length = bytes.length;
  let i = 0;
  while (i < length && (bytes.byteOffset + i) % 4 !== 0) {
    if (isControl(bytes[i] as number)) return true;
    i++;
  }
  if (i >= length) return false;
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, (length - i) >>> 2);
  for (let k = 0; k < words.length; k++) {
    const w = words[k] as number;
    if (((w - 0x20202020) & ~w & 0x80808080) !== 0) {
      const at = i + k * 4;
      if (isControl(bytes[at] as number) || isControl(bytes[at + 1] as number) || isControl(bytes[at + 2] as number) || isControl(bytes[at + 3] as number)) return true;
    }
  }
  for (i += words.length * 4; i < length; i++) {
    if (isControl(bytes[i] as number)) return true;
  }
  return false;
}

function isControl(c: number): boolean {
  return c < 0x20 && c !== 0x0a;
}

/** Writes a safe integer's decimal digits at `at`; returns where they end. */
function writeInteger(output: Buffer, at: number, value: number): number {
  if (value < 0) {
    output[at++] = 0x2d;
    value = -value;
  }
  if (value < 1e8) return writeSmallInteger(output, at, value);
  // Eight digits at a time keep the arithmetic on small integers (times in ms have 13 digits).
  const low = value % 1e8;
  at = writeInteger(output, at, (value - low) / 1e8);
  for (let i = 7, rest = low; i >= 0; i--) {
    output[at + i] = 0x30 + (rest % 10);
    rest = (rest / 10) | 0;
  }
  return at + 8;
}

/** writeInteger for 0 ≤ value < 1e8. */
function writeSmallInteger(output: Buffer, at: number, value: number): number {
  let end = at;
  for (let rest = value; rest >= 10; rest = (rest / 10) | 0) end++;
  const after = end + 1;
  for (let rest = value; end >= at; end--) {
    output[end] = 0x30 + (rest % 10);
    rest = (rest / 10) | 0;
  }
  return after;
}

/**
 * The staged file's bytes of the previous body, kept for the next: a fresh buffer of several
 * MiB per body costs a page fault per 4 KiB as it is first written. One scanner runs at a time
 * in a thread (it is synchronous), and a decode worker that idles stops, giving it back.
 */
let spareOutput: Buffer | undefined;
const MAX_SPARE_OUTPUT_BYTES = 64 * 1024 * 1024;

function outputBuffer(bytes: number): Buffer {
  const spare = spareOutput;
  spareOutput = undefined;
  return spare !== undefined && spare.length >= bytes ? spare : Buffer.allocUnsafe(bytes);
}

/** The decimal number of `count` digits at `at`; -1 when one is not a digit. */
function digits(bytes: Buffer, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const c = bytes[i] as number;
    if (c < 0x30 || c > 0x39) return -1;
    value = value * 10 + c - 0x30;
  }
  return value;
}

function sameKey(key: Buffer, bytes: Buffer, start: number, end: number): boolean {
  if (key.length !== end - start) return false;
  for (let i = 0; i < key.length; i++) if (key[i] !== bytes[start + i]) return false;
  return true;
}

/** DuckDB matches keys without regard to case: siblings that differ only in case take the decoder. */
function checkCaseCollisions(node: Node): void {
  const lower = new Set<string>();
  for (const child of node.order) {
    const key = child.key.toLowerCase();
    if (lower.has(key)) throw NOT_RAW;
    lower.add(key);
  }
}

/** The read_json type of a key: its storage's, a STRUCT of its children, or JSON when it only ever held null or `{}`. */
function sqlType(node: Node): string {
  if (node.children.size > 0) {
    return `STRUCT(${node.order.map((child) => `${quoteIdentifier(child.key)} ${sqlType(child)}`).join(', ')})`;
  }
  const { seen } = node;
  if (seen === 0 || seen === SEEN_OBJECT) return 'JSON';
  if (seen & SEEN_STRING || seen & SEEN_ARRAY) return 'VARCHAR';
  if (seen & SEEN_BOOLEAN) return 'BOOLEAN';
  return seen & (SEEN_INT_OTHER | SEEN_FLOAT) ? 'DOUBLE' : 'BIGINT';
}
