/**
 * The page's only way to the service: its public HTTP API, with the token in the
 * Authorization header (never in a URL). Errors keep the service's status, message and, for
 * APL, the `detail` with the line and column.
 */

import type { Annotation } from '../common/annotation-contract.js';
import type { DashboardDocument, DashboardResource, DashboardWriteReply } from '../common/dashboard-contract.js';
import type { TabularResult } from './tabular.js';

export interface Dataset {
  name: string;
}

/** The position of an APL error, as the service reports it in `detail`. */
export interface AplErrorDetail {
  line?: number;
  column?: number;
  message?: string;
}

export class ApiError extends Error {
  readonly code = 'api_error';
  constructor(
    /** The HTTP status, or 0 when no answer came. */
    readonly status: number,
    message: string,
    readonly detail: AplErrorDetail | undefined = undefined,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface Api {
  currentUser(): Promise<{ name?: string }>;
  datasets(): Promise<Dataset[]>;
  query(apl: string, startMs: number, endMs: number, signal?: AbortSignal): Promise<TabularResult>;
  /** The fields of a dataset, with their types. */
  fields(dataset: string): Promise<{ name: string; type: string }[]>;
  annotations(datasets: readonly string[], startMs: number, endMs: number, signal?: AbortSignal): Promise<Annotation[]>;
  dashboards(): Promise<DashboardResource[]>;
  dashboard(uid: string): Promise<DashboardResource>;
  createDashboard(document: DashboardDocument): Promise<DashboardResource>;
  updateDashboard(uid: string, document: DashboardDocument, version: number): Promise<DashboardResource>;
  deleteDashboard(uid: string): Promise<void>;
}

/** The dashboard list is read in pages of this many, until a short page. */
const DASHBOARD_PAGE = 100;

export function createApi(token: string, onUnauthorized: () => void): Api {
  async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal, cache: 'no-store' });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError(0, `Could not reach the service at ${location.origin} (${error instanceof Error ? error.message : String(error)}). Is timemark still running?`);
    }
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new ApiError(response.status, `${method} ${path} answered ${response.status} with a body that is not JSON.`);
    }
    if (response.ok) return json as T;
    if (response.status === 401) onUnauthorized();
    const error = (json ?? {}) as { message?: unknown; detail?: unknown };
    const message = typeof error.message === 'string' && error.message !== '' ? error.message : `${method} ${path} failed with ${response.status}.`;
    const detail = error.detail !== null && typeof error.detail === 'object' ? (error.detail as AplErrorDetail) : undefined;
    throw new ApiError(response.status, message, detail);
  }

  const iso = (ms: number): string => new Date(ms).toISOString();

  return {
    currentUser: () => call('GET', '/v2/user'),
    datasets: () => call('GET', '/v2/datasets'),
    query: (apl, startMs, endMs, signal) =>
      call('POST', '/v1/datasets/_apl?format=tabular', { apl, startTime: iso(startMs), endTime: iso(endMs) }, signal),
    fields: (dataset) => call('GET', `/v2/datasets/${encodeURIComponent(dataset)}/fields`),
    annotations: (datasets, startMs, endMs, signal) => {
      const params = new URLSearchParams({ datasets: datasets.join(','), start: iso(startMs), end: iso(endMs) });
      return call('GET', `/v2/annotations?${params.toString()}`, undefined, signal);
    },
    dashboards: async () => {
      const all: DashboardResource[] = [];
      for (let offset = 0; ; offset += DASHBOARD_PAGE) {
        const page = await call<DashboardResource[]>('GET', `/v2/dashboards?limit=${DASHBOARD_PAGE}&offset=${offset}`);
        all.push(...page);
        if (page.length < DASHBOARD_PAGE) return all;
      }
    },
    dashboard: (uid) => call('GET', `/v2/dashboards/uid/${encodeURIComponent(uid)}`),
    createDashboard: async (document) => (await call<DashboardWriteReply>('POST', '/v2/dashboards', { dashboard: document })).dashboard,
    updateDashboard: async (uid, document, version) =>
      (await call<DashboardWriteReply>('PUT', `/v2/dashboards/uid/${encodeURIComponent(uid)}`, { dashboard: document, version })).dashboard,
    deleteDashboard: (uid) => call('DELETE', `/v2/dashboards/uid/${encodeURIComponent(uid)}`),
  };
}
