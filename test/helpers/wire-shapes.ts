/**
 * The shapes official clients decode replies into, as checks: a Python dataclass read by dacite
 * (required members present and of their type, Optional ones absent, null or of their type,
 * extra members ignored), a Go struct read by encoding/json (members absent or null, else of
 * their type; time.Time an RFC 3339 string; the clients' enums only their known values).
 */
export type Shape =
  | { kind: 'string' | 'int' | 'number' | 'bool' | 'time' | 'any' }
  | { kind: 'optional'; shape: Shape }
  | { kind: 'list'; item: Shape }
  | { kind: 'map'; value: Shape }
  | { kind: 'object'; members: Readonly<Record<string, Shape>> }
  | { kind: 'enum'; values: readonly unknown[] };

export const str: Shape = { kind: 'string' };
export const int: Shape = { kind: 'int' };
export const num: Shape = { kind: 'number' };
export const bool: Shape = { kind: 'bool' };
export const time: Shape = { kind: 'time' };
export const any: Shape = { kind: 'any' };
export const opt = (shape: Shape): Shape => ({ kind: 'optional', shape });
export const list = (item: Shape): Shape => ({ kind: 'list', item });
export const map = (value: Shape): Shape => ({ kind: 'map', value });
export const obj = (members: Record<string, Shape>): Shape => ({ kind: 'object', members });
export const oneOf = (...values: unknown[]): Shape => ({ kind: 'enum', values });
/** A Go struct: every member may be absent or null. */
export const goStruct = (members: Record<string, Shape>): Shape => obj(Object.fromEntries(Object.entries(members).map(([key, shape]) => [key, opt(shape)])));

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** The problems of `value` against `shape`, each with its path; empty when it decodes. */
export function shapeProblems(value: unknown, shape: Shape, path = '$'): string[] {
  const is = (ok: boolean, expected: string): string[] => (ok ? [] : [`${path}: expected ${expected}, got ${JSON.stringify(value)?.slice(0, 80)}`]);
  switch (shape.kind) {
    case 'optional':
      return value === undefined || value === null ? [] : shapeProblems(value, shape.shape, path);
    case 'any':
      return [];
    case 'string':
      return is(typeof value === 'string', 'a string');
    case 'int':
      return is(typeof value === 'number' && Number.isInteger(value), 'an integer');
    case 'number':
      return is(typeof value === 'number', 'a number');
    case 'bool':
      return is(typeof value === 'boolean', 'a boolean');
    case 'time':
      return is(typeof value === 'string' && RFC3339.test(value), 'an RFC 3339 time');
    case 'enum':
      return is(shape.values.includes(value), `one of ${JSON.stringify(shape.values)}`);
    case 'list':
      if (!Array.isArray(value)) return is(false, 'an array');
      return value.flatMap((item, index) => shapeProblems(item, shape.item, `${path}[${index}]`));
    case 'map':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return is(false, 'an object');
      return Object.entries(value).flatMap(([key, item]) => shapeProblems(item, shape.value, `${path}.${key}`));
    case 'object':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return is(false, 'an object');
      return Object.entries(shape.members).flatMap(([key, member]) => {
        const present = key in value;
        if (!present) return member.kind === 'optional' ? [] : [`${path}.${key}: missing`];
        return shapeProblems((value as Record<string, unknown>)[key], member, `${path}.${key}`);
      });
  }
}
