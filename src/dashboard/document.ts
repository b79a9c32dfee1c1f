/**
 * The page's dashboard as the service stores it: the hosted service's document shape (`name`,
 * `charts` of `{id, name, type, query: {apl}}`, `layout`, `refreshTime`, `schemaVersion`,
 * `timeWindowStart`, `timeWindowEnd`), plus one key of its own, `annotations`, for what the
 * hosted document has no place for: whether annotations are shown, and from which datasets
 * each chart draws them.
 */

import type { DashboardDocument } from '../common/dashboard-contract.js';
import { DEFAULT_RANGE, rangeFromWindow, rangeToWindow, type TimeRange } from './time-range.js';

export interface ChartSpec {
  id: string;
  name: string;
  apl: string;
  /** Undefined: the dataset the query reads. */
  annotationDatasets: string[] | undefined;
}

export interface DashboardSpec {
  name: string;
  range: TimeRange;
  /** Seconds between live refreshes; 0 is off. */
  refreshSeconds: number;
  showAnnotations: boolean;
  charts: ChartSpec[];
}

export const REFRESH_CHOICES: readonly { seconds: number; label: string }[] = [
  { seconds: 0, label: 'Off' },
  { seconds: 15, label: 'Every 15 seconds' },
  { seconds: 60, label: 'Every minute' },
  { seconds: 300, label: 'Every 5 minutes' },
];

const SCHEMA_VERSION = 2;
/** Layout grid: charts stacked, each the full width of the hosted service's 12 columns. */
const GRID_COLUMNS = 12;
const CHART_ROWS = 6;

export function toDocument(spec: DashboardSpec): DashboardDocument {
  const datasets: Record<string, string[]> = {};
  for (const chart of spec.charts) if (chart.annotationDatasets) datasets[chart.id] = chart.annotationDatasets;
  return {
    name: spec.name,
    owner: '',
    description: '',
    schemaVersion: SCHEMA_VERSION,
    charts: spec.charts.map((chart) => ({ id: chart.id, name: chart.name, type: 'TimeSeries', query: { apl: chart.apl } })),
    layout: spec.charts.map((chart, index) => ({ i: chart.id, x: 0, y: index * CHART_ROWS, w: GRID_COLUMNS, h: CHART_ROWS })),
    refreshTime: spec.refreshSeconds,
    ...rangeToWindow(spec.range),
    annotations: { visible: spec.showAnnotations, datasets },
  };
}

/** Reads any stored document; what it lacks or has in another form falls back to the defaults. */
export function fromDocument(document: DashboardDocument): DashboardSpec {
  const annotations = asRecord(document.annotations);
  const chosen = asRecord(annotations.datasets);
  const charts: ChartSpec[] = [];
  for (const item of Array.isArray(document.charts) ? document.charts : []) {
    const chart = asRecord(item);
    const id = typeof chart.id === 'string' && chart.id !== '' ? chart.id : newChartId();
    const apl = asRecord(chart.query).apl;
    const datasets = chosen[id];
    charts.push({
      id,
      name: typeof chart.name === 'string' ? chart.name : '',
      apl: typeof apl === 'string' ? apl : '',
      annotationDatasets: Array.isArray(datasets) ? datasets.filter((name): name is string => typeof name === 'string') : undefined,
    });
  }
  const refresh = REFRESH_CHOICES.find((choice) => choice.seconds === document.refreshTime);
  return {
    name: typeof document.name === 'string' ? document.name : '',
    range: rangeFromWindow(document.timeWindowStart, document.timeWindowEnd) ?? DEFAULT_RANGE,
    refreshSeconds: refresh?.seconds ?? 0,
    showAnnotations: annotations.visible !== false,
    charts,
  };
}

/** getRandomValues, unlike randomUUID, also works on plain-http origins other than localhost. */
export function newChartId(): string {
  const hex = [...crypto.getRandomValues(new Uint8Array(6))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `chart-${hex}`;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
