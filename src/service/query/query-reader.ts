import type { EventReader } from '../../engine/store/types.js';
import { allows, type Principal } from '../access/capabilities.js';
import { requireAccess } from '../access/gate.js';
import type { VirtualFieldStore } from '../vfields/store.js';

/**
 * The event store as a query sees it: each dataset's schema carries its virtual fields, and a
 * principal may read the schema (and so query the dataset) only with the `query:read`
 * capability on it. An APL query names its datasets in its text, so this is where its access is
 * checked: every dataset it reads goes through `schema()` before any row is.
 */
export function createQueryReaders(events: EventReader, vfields: VirtualFieldStore): (principal: Principal) => EventReader {
  return (principal) => ({
    schema: (dataset) => {
      requireAccess(principal, { dataset, capability: 'query', action: 'read' });
      const schema = events.schema(dataset);
      if (!schema) return undefined;
      const virtualFields = vfields.definitions(dataset);
      return virtualFields.length === 0 ? schema : { ...schema, virtualFields };
    },
    // A pattern (`union github*`) matches only the datasets the principal may query.
    datasets: () => (events.datasets?.() ?? []).filter((dataset) => allows(principal, { dataset, capability: 'query', action: 'read' })),
    read: (budget, work) => events.read(budget, work),
    readOne: (budget, sql, params) => events.readOne(budget, sql, params),
    windowRows: (table, start, end) => events.windowRows(table, start, end),
    unchangedSince: (version) => events.unchangedSince(version),
  });
}
