/**
 * One chart of the dashboard: its dataset, its APL query, the datasets whose annotations it
 * draws, and the chart itself (uPlot for a time series, a table for anything else).
 */

import { createAnnotationLayer } from './annotation-layer.js';
import { createImpactDetails } from './impact-details.js';
import { ApiError, type AplErrorDetail, type Api } from './api.js';
import type { ChartSpec } from './document.js';
import { el, uniqueId } from './dom.js';
import { queryLink } from '../common/dashboard-link.js';
import { defaultQuery, sourceDataset, withSource } from './query-text.js';
import { toResultModel, type TableModel, type TimeSeriesModel } from './tabular.js';

export interface PanelContext {
  api: Api;
  /** Names of the datasets the service has. */
  datasets(): readonly string[];
  /** The dashboard's window at this moment. */
  window(): { startMs: number; endMs: number };
  annotationsVisible(): boolean;
  /** Something saved with the dashboard changed. */
  changed(): void;
  remove(panel: ChartPanel): void;
}

export interface ChartPanel {
  readonly element: HTMLElement;
  spec(): ChartSpec;
  /** Runs the query and fetches the annotations again, over the dashboard's current window. */
  refresh(): Promise<void>;
  setAnnotationsVisible(visible: boolean): void;
  /** The list of datasets changed: rebuild the pickers. */
  datasetsChanged(): void;
  focus(): void;
  destroy(): void;
}

const SERIES_COLORS = ['#2563eb', '#059669', '#d97706', '#7c3aed', '#db2777', '#0891b2', '#65a30d', '#9f1239'];
const PHONE_WIDTH = 600;
/** Value-axis steps for counts: no 2.5 events. */
const WHOLE_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 2.5e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 1e7, 1e8, 1e9];

export function createChartPanel(initial: ChartSpec, context: PanelContext): ChartPanel {
  const { api } = context;
  let runApl = initial.apl;
  let annotationDatasets = initial.annotationDatasets;
  let chart: uPlot | undefined;
  let chartShape = '';
  let inFlight: AbortController | undefined;
  let shown = context.window();
  let resultNote = '';
  let annotationNote: { count: number; datasets: string[] } | string | undefined;

  const ids = { name: uniqueId('chart-name'), apl: uniqueId('apl'), hint: uniqueId('apl-hint'), error: uniqueId('apl-error'), dataset: uniqueId('dataset') };

  const nameInput = el('input', { id: ids.name, class: 'chart-name', type: 'text', value: initial.name, maxlength: 256, autocomplete: 'off' });
  const removeButton = el('button', { type: 'button', class: 'remove-chart secondary' }, ['Remove chart']);
  const link = el('a', { class: 'query-link', href: '/' }, ['Link to this query']);
  const datasetSelect = el('select', { id: ids.dataset, class: 'dataset-select' });
  const pickerSummaryText = el('span', {}, []);
  const pickerList = el('div', { class: 'annotation-dataset-list' });
  const picker = el('details', { class: 'annotation-picker' }, [
    el('summary', {}, ['Annotations from: ', pickerSummaryText]),
    el('fieldset', {}, [el('legend', {}, ['Draw annotations from these datasets']), pickerList]),
  ]);
  const aplInput = el('textarea', {
    id: ids.apl,
    class: 'apl',
    rows: 3,
    spellcheck: 'false',
    autocapitalize: 'off',
    autocomplete: 'off',
    'aria-describedby': `${ids.hint} ${ids.error}`,
  });
  aplInput.value = initial.apl;
  const runButton = el('button', { type: 'button', class: 'run-query' }, ['Run query']);
  const errorBox = el('div', { id: ids.error, class: 'query-error', role: 'alert', hidden: true });
  const plotArea = el('div', { class: 'plot-area' });
  const summary = el('figcaption', { class: 'plot-summary', 'aria-live': 'polite' });
  const figure = el('figure', { class: 'plot' }, [plotArea, summary]);
  // A deploy's details measure its impact on the dataset this chart shows.
  const layer = createAnnotationLayer(
    figure,
    createImpactDetails(api, () => chartedDataset()),
  );
  layer.setVisible(context.annotationsVisible());

  const element = el('section', { class: 'chart-panel', 'aria-label': `Chart: ${initial.name || 'untitled'}` }, [
    el('div', { class: 'panel-head' }, [
      el('label', { for: ids.name, class: 'visually-hidden' }, ['Chart title']),
      nameInput,
      link,
      removeButton,
    ]),
    el('div', { class: 'panel-controls' }, [el('label', { for: ids.dataset }, ['Dataset']), datasetSelect, picker]),
    el('div', { class: 'query-editor' }, [
      el('label', { for: ids.apl }, ['APL query']),
      aplInput,
      el('div', { class: 'query-actions' }, [runButton, el('span', { id: ids.hint, class: 'hint' }, ['Ctrl+Enter runs the query.'])]),
      errorBox,
    ]),
    figure,
  ]);

  nameInput.addEventListener('input', () => {
    element.setAttribute('aria-label', `Chart: ${nameInput.value || 'untitled'}`);
    context.changed();
  });
  removeButton.addEventListener('click', () => context.remove(panel));
  runButton.addEventListener('click', () => void run());
  aplInput.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void run();
    }
  });
  datasetSelect.addEventListener('change', () => {
    const dataset = datasetSelect.value;
    const text = aplInput.value.trim() === '' ? defaultQuery(dataset) : withSource(aplInput.value, dataset);
    if (text === undefined) {
      showError(`The query does not start with a dataset, so picking ${dataset} cannot change it. Edit the query to read ['${dataset}'].`);
      return;
    }
    // A title that only named the old dataset follows the new one.
    if (nameInput.value === sourceDataset(aplInput.value)) {
      nameInput.value = dataset;
      element.setAttribute('aria-label', `Chart: ${dataset}`);
    }
    aplInput.value = text;
    void run();
  });

  function chartedDataset(): string | undefined {
    return sourceDataset(runApl);
  }

  function drawnDatasets(): string[] {
    if (annotationDatasets) return annotationDatasets;
    const charted = chartedDataset();
    return charted === undefined ? [] : [charted];
  }

  function rebuildDatasetPickers(): void {
    const names = context.datasets();
    const charted = chartedDataset();
    const options = charted !== undefined && !names.includes(charted) ? [charted, ...names] : [...names];
    datasetSelect.replaceChildren(
      ...(options.length === 0 ? [el('option', { value: '' }, ['No datasets yet'])] : options.map((name) => el('option', { value: name, selected: name === charted }, [name]))),
    );
    if (charted === undefined && options.length > 0) datasetSelect.selectedIndex = -1;
    const drawn = drawnDatasets();
    const choices = [...new Set([...drawn, ...names])];
    pickerList.replaceChildren(
      ...choices.map((name) => {
        const box = el('input', { type: 'checkbox', value: name, checked: drawn.includes(name) });
        box.addEventListener('change', () => {
          annotationDatasets = [...pickerList.querySelectorAll<HTMLInputElement>('input:checked')].map((input) => input.value);
          updatePickerSummary();
          context.changed();
          void refresh();
        });
        return el('label', { class: 'check' }, [box, ` ${name}`]);
      }),
    );
    updatePickerSummary();
  }

  function updatePickerSummary(): void {
    const drawn = drawnDatasets();
    pickerSummaryText.textContent = drawn.length === 0 ? 'none' : drawn.join(', ');
  }

  async function run(): Promise<void> {
    const before = chartedDataset();
    runApl = aplInput.value;
    if (chartedDataset() !== before) rebuildDatasetPickers();
    context.changed();
    await refresh();
  }

  async function refresh(): Promise<void> {
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    shown = context.window();
    link.href = queryLink(runApl, shown.startMs, shown.endMs);
    figure.setAttribute('aria-busy', 'true');
    const datasets = drawnDatasets();
    const empty = runApl.trim() === '';
    const [result, annotations] = await Promise.allSettled([
      empty ? Promise.resolve(undefined) : api.query(runApl, shown.startMs, shown.endMs, controller.signal),
      datasets.length === 0 ? Promise.resolve([]) : api.annotations(datasets, shown.startMs, shown.endMs, controller.signal),
    ]);
    if (controller.signal.aborted) return;
    inFlight = undefined;
    figure.removeAttribute('aria-busy');
    if (annotations.status === 'fulfilled') {
      layer.setAnnotations(annotations.value);
      annotationNote = datasets.length === 0 ? undefined : { count: annotations.value.length, datasets };
    } else {
      annotationNote = `Annotations could not be loaded: ${messageOf(annotations.reason)}`;
    }
    if (result.status === 'rejected') {
      const detail = result.reason instanceof ApiError ? result.reason.detail : undefined;
      showError(detail?.message ?? messageOf(result.reason), detail);
      resultNote = chart ? 'The query failed; the chart shows its last result' : 'The query failed';
      chart?.redraw(false);
    } else if (result.value === undefined) {
      clearError();
      destroyChart();
      plotArea.replaceChildren();
      resultNote =
        context.datasets().length === 0
          ? 'No datasets yet: send events to POST /v1/datasets/<name>/ingest (or run timemark ingest), then pick the dataset here'
          : 'No query yet: pick a dataset or write an APL query';
    } else {
      clearError();
      const model = toResultModel(result.value);
      resultNote = model.kind === 'time-series' ? describeSeries(model) : describeTable(model);
      if (model.kind === 'time-series') drawSeries(model);
      else drawTable(model);
    }
    renderSummary();
  }

  function renderSummary(): void {
    const notes = [resultNote];
    if (typeof annotationNote === 'string') notes.push(annotationNote);
    else if (annotationNote) {
      const { count, datasets } = annotationNote;
      const hidden = context.annotationsVisible() ? '' : ', hidden';
      notes.push(`${count} annotation${count === 1 ? '' : 's'} from ${datasets.join(', ')}${hidden}`);
    }
    summary.textContent = `${notes.filter((note) => note !== '').join('. ')}.`;
  }

  function describeSeries(model: TimeSeriesModel): string {
    if (model.times.length === 0 || model.series.length === 0) return 'No events in this time range';
    const labels = model.series.slice(0, 3).map((series) => series.label);
    const more = model.series.length > 3 ? ` and ${model.series.length - 3} more` : '';
    return `${model.series.length} series (${labels.join(', ')}${more}) over ${model.times.length} time buckets`;
  }

  function describeTable(model: TableModel): string {
    if (model.totalRows > model.rows.length) return `Showing ${model.rows.length} of ${model.totalRows} rows; add "by bin_auto(_time)" to chart the query over time`;
    return `${model.totalRows} row${model.totalRows === 1 ? '' : 's'}; add "by bin_auto(_time)" to chart the query over time`;
  }

  function plotSize(): { width: number; height: number } {
    const width = Math.max(280, plotArea.clientWidth || element.clientWidth || 600);
    return { width, height: width < PHONE_WIDTH ? 220 : 300 };
  }

  function drawSeries(model: TimeSeriesModel): void {
    const data: uPlot.AlignedData = [model.times, ...model.series.map((series) => series.values)];
    const shape = `${model.integers}\u0000${model.series.map((series) => series.label).join('\u0000')}`;
    if (chart && shape === chartShape) {
      chart.setData(data);
      return;
    }
    destroyChart();
    plotArea.replaceChildren();
    chartShape = shape;
    chart = new uPlot(
      {
        ...plotSize(),
        scales: { x: { time: true, range: () => [shown.startMs / 1000, shown.endMs / 1000] } },
        axes: [
          { stroke: '#374151', grid: { stroke: '#e5e7eb', width: 1 }, ticks: { stroke: '#d1d5db', width: 1 } },
          {
            stroke: '#374151',
            grid: { stroke: '#e5e7eb', width: 1 },
            ticks: { stroke: '#d1d5db', width: 1 },
            size: 56,
            ...(model.integers ? { incrs: WHOLE_STEPS } : {}),
          },
        ],
        series: [
          { label: 'Time' },
          ...model.series.map((series, index) => ({
            label: series.label,
            stroke: SERIES_COLORS[index % SERIES_COLORS.length],
            width: 2,
          })),
        ],
        cursor: { drag: { x: false, y: false } },
        legend: { show: model.series.length > 0 },
        plugins: [layer.plugin],
      },
      data,
      plotArea,
    );
    // The chart instance, for the browser tests and for debugging from the console.
    Object.defineProperty(plotArea, 'uplot', { value: chart, configurable: true });
  }

  function drawTable(model: TableModel): void {
    destroyChart();
    const table = el('table', { class: 'result-table' }, [
      el('thead', {}, [el('tr', {}, model.headers.map((header) => el('th', { scope: 'col' }, [header])))]),
      el('tbody', {}, model.rows.map((row) => el('tr', {}, row.map((cell) => el('td', {}, [cell]))))),
    ]);
    plotArea.replaceChildren(el('div', { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': 'Query result' }, [table]));
  }

  function destroyChart(): void {
    chart?.destroy();
    chart = undefined;
    chartShape = '';
  }

  function showError(message: string, detail?: AplErrorDetail): void {
    aplInput.setAttribute('aria-invalid', 'true');
    const children: Node[] = [el('p', {}, [el('strong', {}, ['Query error: ']), message])];
    const line = detail?.line;
    const column = detail?.column;
    if (typeof line === 'number' && typeof column === 'number') {
      children.push(el('p', { class: 'error-position' }, [`At line ${line}, column ${column}.`]), el('pre', { class: 'code-frame' }, [codeFrame(aplInput.value, line, column)]));
      const jump = el('button', { type: 'button', class: 'secondary' }, ['Show in query']);
      jump.addEventListener('click', () => {
        const offset = offsetOf(aplInput.value, line, column);
        aplInput.focus();
        aplInput.setSelectionRange(offset, offset + 1);
      });
      children.push(jump);
    }
    errorBox.replaceChildren(...children);
    errorBox.hidden = false;
  }

  function clearError(): void {
    aplInput.removeAttribute('aria-invalid');
    errorBox.hidden = true;
    errorBox.replaceChildren();
  }

  const resize = new ResizeObserver(() => {
    if (chart) {
      const size = plotSize();
      if (size.width !== chart.width || size.height !== chart.height) chart.setSize(size);
    }
  });
  resize.observe(plotArea);

  const panel: ChartPanel = {
    element,
    spec: () => ({ id: initial.id, name: nameInput.value, apl: runApl, annotationDatasets }),
    refresh,
    setAnnotationsVisible: (visible) => {
      layer.setVisible(visible);
      chart?.redraw(false);
      renderSummary();
    },
    datasetsChanged: rebuildDatasetPickers,
    focus: () => nameInput.focus(),
    destroy: () => {
      inFlight?.abort();
      resize.disconnect();
      destroyChart();
      element.remove();
    },
  };
  rebuildDatasetPickers();
  return panel;
}

/** The query line with the error and a caret under its column, as the service's errors point. */
export function codeFrame(text: string, line: number, column: number): string {
  const lines = text.split('\n');
  const source = lines[line - 1] ?? '';
  const gutter = `${line} | `;
  return `${gutter}${source}\n${' '.repeat(gutter.length + Math.max(0, column - 1))}^`;
}

function offsetOf(text: string, line: number, column: number): number {
  const lines = text.split('\n');
  let offset = 0;
  for (let index = 0; index < line - 1 && index < lines.length; index++) offset += (lines[index]?.length ?? 0) + 1;
  return Math.min(text.length, offset + Math.max(0, column - 1));
}

function messageOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
