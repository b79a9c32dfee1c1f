import { ARRAY_FUNCTIONS } from './array.js';
import { CONDITIONAL_FUNCTIONS } from './conditional.js';
import { CONVERSION_FUNCTIONS } from './conversion.js';
import { DATETIME_FUNCTIONS } from './datetime.js';
import { GENAI_FUNCTIONS } from './genai.js';
import { HASH_FUNCTIONS } from './hash.js';
import { IP_FUNCTIONS } from './ip.js';
import { MATH_FUNCTIONS } from './math.js';
import { METADATA_FUNCTIONS } from './metadata.js';
import { PAIR_FUNCTIONS } from './pair.js';
import { ROUNDING_FUNCTIONS } from './rounding.js';
import { SERIES_FUNCTIONS } from './series.js';
import { SQL_FUNCTIONS } from './sql.js';
import { STRING_FUNCTIONS } from './string.js';
import { TYPE_FUNCTIONS } from './type.js';
import type { FunctionDef } from './types.js';

/** A family of functions as the APL reference groups them (`scalar-functions/<family>`). */
export interface Family {
  readonly name: string;
  /** The reference's title for it, for the list of functions (docs/apl.md). */
  readonly title: string;
  readonly functions: readonly FunctionDef[];
}

/**
 * Every scalar function, by family: the only index. A new function is one entry in its family's
 * file; a new family is one file and one line here.
 */
export const FAMILIES: readonly Family[] = [
  { name: 'string', title: 'String functions', functions: STRING_FUNCTIONS },
  { name: 'math', title: 'Mathematical functions', functions: MATH_FUNCTIONS },
  { name: 'rounding', title: 'Rounding functions', functions: ROUNDING_FUNCTIONS },
  { name: 'conversion', title: 'Conversion functions', functions: CONVERSION_FUNCTIONS },
  { name: 'type', title: 'Type functions', functions: TYPE_FUNCTIONS },
  { name: 'conditional', title: 'Conditional functions', functions: CONDITIONAL_FUNCTIONS },
  { name: 'datetime', title: 'Datetime functions', functions: DATETIME_FUNCTIONS },
  { name: 'array', title: 'Array functions', functions: ARRAY_FUNCTIONS },
  { name: 'series', title: 'Time series functions', functions: SERIES_FUNCTIONS },
  { name: 'hash', title: 'Hash functions', functions: HASH_FUNCTIONS },
  { name: 'ip', title: 'IP-address functions', functions: IP_FUNCTIONS },
  { name: 'pair', title: 'Pair functions', functions: PAIR_FUNCTIONS },
  { name: 'metadata', title: 'Metadata functions', functions: METADATA_FUNCTIONS },
  { name: 'sql', title: 'SQL functions', functions: SQL_FUNCTIONS },
  { name: 'genai', title: 'GenAI functions', functions: GENAI_FUNCTIONS },
];

const BY_NAME: ReadonlyMap<string, FunctionDef> = index(FAMILIES);

function index(families: readonly Family[]): Map<string, FunctionDef> {
  const byName = new Map<string, FunctionDef>();
  for (const family of families) {
    for (const def of family.functions) {
      for (const name of [def.name, ...(def.aliases ?? [])]) {
        // Two entries under one name would make one of them unreachable: refuse to start.
        if (byName.has(name)) throw new Error(`Two scalar functions are named ${name}.`);
        byName.set(name, def);
      }
    }
  }
  return byName;
}

/** The function APL calls `name` (names are case-sensitive, as in APL). */
export function functionNamed(name: string): FunctionDef | undefined {
  return BY_NAME.get(name);
}

/** Every name a scalar function can be called by, aliases included: the candidates of "did you mean". */
export const FUNCTION_NAMES: readonly string[] = [...BY_NAME.keys()];
