/**
 * The dashboard wire types, shared by the local service and the dashboard page (types only, so
 * the browser build takes nothing else from here): a saved dashboard as `@axiomhq/js` 2.0.0's
 * `dashboards.DashboardResource` reads it.
 */

/** The hosted service's document (`name`, `charts`, `layout`, …), an open record on the wire. */
export type DashboardDocument = Record<string, unknown>;

export interface DashboardResource {
  id: string;
  uid: string;
  dashboard: DashboardDocument;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
  updatedBy: string;
  version: number;
}

/** What a create or an update answers: the resource under `dashboard`, as the hosted upsert does. */
export interface DashboardWriteReply {
  dashboard: DashboardResource;
}
