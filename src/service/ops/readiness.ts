import type { DiskWatch } from '../../common/disk-full.js';
import type { ReadinessChecks } from '../../common/http/ops-routes.js';
import type { EventStore } from '../../engine/store/event-store.js';
import { checkWritable, type ServiceDatabase } from '../database.js';

/**
 * What the service's /readyz checks: both stores it writes to and the disk under them. `store` is
 * the SQLite file of annotations, datasets, dashboards and monitors; `events` is the DuckDB file
 * of dataset events; `disk` says `disk full` while writes fail for lack of space.
 */
export function serviceReadiness(db: ServiceDatabase, events: EventStore, disk: DiskWatch): ReadinessChecks {
  return {
    store: () => checkWritable(db),
    events: () => events.check(),
    disk: () => disk.check(),
  };
}
