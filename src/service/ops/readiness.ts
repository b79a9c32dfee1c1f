import type { ReadinessChecks } from '../../common/http/ops-routes.js';
import type { EventStore } from '../../engine/store/event-store.js';
import { checkWritable, type ServiceDatabase } from '../database.js';

/**
 * What the service's /readyz checks: both stores it writes to. `store` is the SQLite file of
 * annotations, datasets, dashboards and monitors; `events` is the DuckDB file of dataset events.
 */
export function serviceReadiness(db: ServiceDatabase, events: EventStore): ReadinessChecks {
  return {
    store: () => checkWritable(db),
    events: () => events.check(),
  };
}
