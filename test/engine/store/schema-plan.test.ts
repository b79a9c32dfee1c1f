import { describe, expect, it } from 'vitest';
import { BASE_FIELDS } from '../../../src/engine/store/catalog.js';
import { planSchema } from '../../../src/engine/store/schema-plan.js';
import type { StagedPart } from '../../../src/engine/store/staged-batch.js';

const part = (key: string, field: string, storage: StagedPart['storage'], types: StagedPart['types'] = [storage as never]): StagedPart => ({ key, field, storage, types });

describe('schema plan', () => {
  it('adds new fields as numbered columns after the existing ones', () => {
    const plan = planSchema(BASE_FIELDS, [part('c0', 'a', 'integer'), part('c1', 'b', 'string')], { maxFields: 100, nextColumn: 1 });
    expect(plan.added.map((field) => [field.name, field.column, field.storage])).toEqual([
      ['a', 'f1', 'integer'],
      ['b', 'f2', 'string'],
    ]);
    expect(plan.nextColumn).toBe(3);
    expect(plan.catalogChanged).toBe(true);
    expect([...plan.sources.keys()]).toEqual(['f1', 'f2']);
  });

  it('widens an existing column once for all the parts of a batch', () => {
    const current = [...BASE_FIELDS, { name: 'n', column: 'f1', storage: 'integer' as const, types: ['integer' as const] }];
    const plan = planSchema(current, [part('c0', 'n', 'integer'), part('c1', 'n', 'float')], { maxFields: 100, nextColumn: 2 });
    expect(plan.widened).toEqual([{ field: { name: 'n', column: 'f1', storage: 'float', types: ['integer', 'float'] }, from: 'integer' }]);
    expect(plan.sources.get('f1')?.map((p) => p.key)).toEqual(['c0', 'c1']);
  });

  it('changes nothing when the batch brings known fields with known types', () => {
    const current = [...BASE_FIELDS, { name: 'n', column: 'f1', storage: 'float' as const, types: ['integer' as const, 'float' as const] }];
    const plan = planSchema(current, [part('c0', 'n', 'integer')], { maxFields: 100, nextColumn: 2 });
    expect(plan.catalogChanged).toBe(false);
    expect(plan.fields).toBe(plan.fields);
    expect(plan.fields[2]).toBe(current[2]);
  });

  it('rejects the parts of new fields beyond the limit and keeps known fields', () => {
    const current = [...BASE_FIELDS, { name: 'a', column: 'f1', storage: 'integer' as const, types: ['integer' as const] }];
    const plan = planSchema(current, [part('c0', 'a', 'integer'), part('c1', 'b', 'string'), part('c2', 'b', 'integer')], { maxFields: 3, nextColumn: 2 });
    expect(plan.rejected.map((p) => p.key)).toEqual(['c1', 'c2']);
    expect(plan.added).toEqual([]);
  });

  it('refuses a batch that names a time field the decoder should have consumed', () => {
    expect(() => planSchema(BASE_FIELDS, [part('c0', '_time', 'string')], { maxFields: 100, nextColumn: 1 })).toThrow(/reserved field "_time"/);
  });
});
