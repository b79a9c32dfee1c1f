/**
 * The dashboard page: signs in with the token, then shows one dashboard — charts, the time
 * range, live refresh, the annotations toggle — and saves it to, or opens it from, the service.
 */

import type { DashboardResource } from '../common/dashboard-contract.js';
import { ApiError, createApi, type Api } from './api.js';
import { createChartPanel, type ChartPanel } from './chart-panel.js';
import { byId, el } from './dom.js';
import { createDoraPanel } from './dora-panel.js';
import { fromDocument, newChartId, REFRESH_CHOICES, toDocument, type ChartSpec, type DashboardSpec } from './document.js';
import { dashboardLink, readPageLink, takeTokenFromFragment, type PageLink } from '../common/dashboard-link.js';
import { defaultQuery, sourceDataset } from './query-text.js';
import { customRange, DEFAULT_RANGE, fromLocalInput, PRESETS, resolveRange, toLocalInput, type TimeRange } from './time-range.js';

const TOKEN_KEY = 'timemark.token';
const UNTITLED = 'Untitled dashboard';

const view = {
  signIn: byId('sign-in', HTMLElement),
  signInForm: byId('sign-in-form', HTMLFormElement),
  tokenInput: byId('token-input', HTMLInputElement),
  signInError: byId('sign-in-error', HTMLElement),
  app: byId('app', HTMLElement),
  signOut: byId('sign-out', HTMLButtonElement),
  dashboardPicker: byId('dashboard-picker', HTMLSelectElement),
  dashboardName: byId('dashboard-name', HTMLInputElement),
  save: byId('save-dashboard', HTMLButtonElement),
  saveAsNew: byId('save-as-new', HTMLButtonElement),
  remove: byId('delete-dashboard', HTMLButtonElement),
  range: byId('time-range', HTMLSelectElement),
  customRange: byId('custom-range', HTMLFieldSetElement),
  rangeStart: byId('range-start', HTMLInputElement),
  rangeEnd: byId('range-end', HTMLInputElement),
  applyRange: byId('apply-range', HTMLButtonElement),
  refresh: byId('live-refresh', HTMLSelectElement),
  refreshNow: byId('refresh-now', HTMLButtonElement),
  showAnnotations: byId('show-annotations', HTMLInputElement),
  charts: byId('charts', HTMLElement),
  addChart: byId('add-chart', HTMLButtonElement),
  status: byId('status', HTMLElement),
  pageError: byId('page-error', HTMLElement),
  dora: byId('dora-panel', HTMLDetailsElement),
};

interface Session {
  api: Api;
  datasets: string[];
  saved: DashboardResource[];
  /** The open dashboard's uid and version, once saved. */
  uid: string | undefined;
  version: number | undefined;
  range: TimeRange;
  panels: ChartPanel[];
  timer: number | undefined;
  dirty: boolean;
}

let session: Session | undefined;

function say(message: string): void {
  view.pageError.hidden = true;
  view.status.textContent = message;
}

function fail(message: string): void {
  view.pageError.textContent = message;
  view.pageError.hidden = false;
}

function showSignIn(message?: string): void {
  stopTimer();
  session = undefined;
  dora.reset();
  view.app.hidden = true;
  view.signIn.hidden = false;
  view.signInError.textContent = message ?? '';
  view.signInError.hidden = message === undefined;
  view.tokenInput.value = '';
  view.tokenInput.focus();
}

function signedOut(message: string): void {
  sessionStorage.removeItem(TOKEN_KEY);
  showSignIn(message);
}

async function signIn(token: string, link: PageLink): Promise<void> {
  const api = createApi(token, () => signedOut('The service refused the token (401). Sign in again with a token it knows.'));
  try {
    await api.currentUser();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return;
    showSignIn(error instanceof Error ? error.message : String(error));
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  view.signIn.hidden = true;
  view.app.hidden = false;
  let datasets: { name: string }[];
  let saved: DashboardResource[];
  try {
    [datasets, saved] = await Promise.all([api.datasets(), api.dashboards()]);
  } catch (error) {
    fail(`Could not load the datasets and dashboards: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  session = {
    api,
    datasets: datasets.map((dataset) => dataset.name),
    saved,
    uid: undefined,
    version: undefined,
    range: DEFAULT_RANGE,
    panels: [],
    timer: undefined,
    dirty: false,
  };
  renderSavedList();
  if (link.dashboard) await openDashboard(link.dashboard);
  else if (link.apl) openQuery(link);
  else openSpec(newDashboardSpec(), '/');
}

function newDashboardSpec(): DashboardSpec {
  const first = session?.datasets[0];
  return {
    name: UNTITLED,
    range: DEFAULT_RANGE,
    refreshSeconds: 0,
    showAnnotations: true,
    charts: [{ id: newChartId(), name: first ?? 'Events', apl: first === undefined ? '' : defaultQuery(first), annotationDatasets: undefined }],
  };
}

/** `/?apl=…&start=…&end=…`: one chart of that query over that range. */
function openQuery(link: PageLink): void {
  const apl = link.apl ?? '';
  let range: TimeRange = DEFAULT_RANGE;
  let problem: string | undefined;
  if (link.start !== undefined || link.end !== undefined) {
    const custom = customRange(link.start ?? '', link.end ?? new Date().toISOString());
    if (custom) range = custom;
    else problem = `The link's range start=${JSON.stringify(link.start ?? '')} end=${JSON.stringify(link.end ?? '')} is not two RFC 3339 times with start before end; showing the last hour instead.`;
  }
  openSpec(
    {
      name: UNTITLED,
      range,
      refreshSeconds: 0,
      showAnnotations: true,
      charts: [{ id: newChartId(), name: sourceDataset(apl) ?? 'Query', apl, annotationDatasets: undefined }],
    },
    `${location.pathname}${location.search}`,
  );
  if (problem) fail(problem);
}

async function openDashboard(uid: string): Promise<void> {
  if (!session) return;
  try {
    const resource = await session.api.dashboard(uid);
    openSpec(fromDocument(resource.dashboard), dashboardLink(resource.uid), resource);
    say(`Opened dashboard “${view.dashboardName.value}” (version ${resource.version}).`);
  } catch (error) {
    openSpec(newDashboardSpec(), '/');
    fail(`Could not open dashboard ${uid}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Shows `spec`; `address` is what the address bar then says (a link that reopens it). */
function openSpec(spec: DashboardSpec, address: string, resource?: DashboardResource): void {
  if (!session) return;
  for (const panel of session.panels) panel.destroy();
  session.panels = [];
  session.uid = resource?.uid;
  session.version = resource?.version;
  session.range = spec.range;
  view.dashboardName.value = spec.name;
  view.dashboardPicker.value = resource?.uid ?? '';
  view.remove.disabled = resource === undefined;
  view.saveAsNew.disabled = resource === undefined;
  view.showAnnotations.checked = spec.showAnnotations;
  view.refresh.value = String(spec.refreshSeconds);
  renderRange();
  for (const chart of spec.charts) addPanel(chart);
  history.replaceState(null, '', address);
  setDirty(false);
  restartTimer();
  void refreshAll();
}

function addPanel(spec: ChartSpec): ChartPanel {
  const current = session;
  if (!current) throw new Error('addPanel needs a signed-in session.');
  const panel = createChartPanel(spec, {
    api: current.api,
    datasets: () => current.datasets,
    window: () => resolveRange(current.range, Date.now()),
    annotationsVisible: () => view.showAnnotations.checked,
    changed: () => setDirty(true),
    remove: (removed) => {
      const index = current.panels.indexOf(removed);
      current.panels.splice(index, 1);
      removed.destroy();
      setDirty(true);
      say('Chart removed.');
      (current.panels[Math.min(index, current.panels.length - 1)]?.element.querySelector<HTMLElement>('.chart-name') ?? view.addChart).focus();
    },
  });
  current.panels.push(panel);
  view.charts.append(panel.element);
  return panel;
}

async function refreshAll(): Promise<void> {
  if (!session) return;
  await Promise.all(session.panels.map((panel) => panel.refresh()));
}

function stopTimer(): void {
  if (session?.timer !== undefined) window.clearInterval(session.timer);
  if (session) session.timer = undefined;
}

function restartTimer(): void {
  stopTimer();
  const seconds = Number(view.refresh.value);
  if (!session || !(seconds > 0)) return;
  session.timer = window.setInterval(() => {
    if (!document.hidden) void refreshAll();
  }, seconds * 1000);
}

function renderRange(): void {
  if (!session) return;
  const { range } = session;
  view.range.value = range.kind === 'preset' ? range.preset : 'custom';
  view.customRange.hidden = range.kind !== 'custom';
  const { startMs, endMs } = resolveRange(range, Date.now());
  view.rangeStart.value = toLocalInput(startMs);
  view.rangeEnd.value = toLocalInput(endMs);
}

function setDirty(dirty: boolean): void {
  if (!session) return;
  session.dirty = dirty;
  view.save.textContent = dirty ? 'Save changes' : 'Save';
}

function currentSpec(): DashboardSpec {
  return {
    name: view.dashboardName.value.trim() || UNTITLED,
    range: session?.range ?? DEFAULT_RANGE,
    refreshSeconds: Number(view.refresh.value),
    showAnnotations: view.showAnnotations.checked,
    charts: session?.panels.map((panel) => panel.spec()) ?? [],
  };
}

function renderSavedList(): void {
  if (!session) return;
  const selected = session.uid ?? '';
  view.dashboardPicker.replaceChildren(
    el('option', { value: '' }, ['New dashboard']),
    ...session.saved.map((resource) => el('option', { value: resource.uid }, [dashboardName(resource)])),
  );
  view.dashboardPicker.value = selected;
}

function dashboardName(resource: DashboardResource): string {
  const name = resource.dashboard.name;
  return typeof name === 'string' && name !== '' ? name : resource.uid;
}

async function save(asNew: boolean): Promise<void> {
  if (!session) return;
  const current = session;
  const document = toDocument(currentSpec());
  try {
    const saved =
      current.uid !== undefined && current.version !== undefined && !asNew
        ? await current.api.updateDashboard(current.uid, document, current.version)
        : await current.api.createDashboard(document);
    current.uid = saved.uid;
    current.version = saved.version;
    current.saved = [...current.saved.filter((resource) => resource.uid !== saved.uid), saved];
    renderSavedList();
    view.remove.disabled = false;
    view.saveAsNew.disabled = false;
    history.replaceState(null, '', dashboardLink(saved.uid));
    setDirty(false);
    say(`Saved “${dashboardName(saved)}” (version ${saved.version}).`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) {
      fail(`Not saved: this dashboard was changed elsewhere since you opened it (${error.message}). Open it again to see those changes, or use “Save as new” to keep yours as another dashboard.`);
      return;
    }
    fail(`Not saved: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function remove(): Promise<void> {
  if (!session?.uid) return;
  const current = session;
  const uid = session.uid;
  if (!window.confirm(`Delete the dashboard “${view.dashboardName.value}”? This cannot be undone.`)) return;
  try {
    await current.api.deleteDashboard(uid);
    current.saved = current.saved.filter((resource) => resource.uid !== uid);
    current.uid = undefined;
    renderSavedList();
    openSpec(newDashboardSpec(), '/');
    say('Dashboard deleted.');
    view.dashboardPicker.focus();
  } catch (error) {
    fail(`Not deleted: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function wireControls(): void {
  view.range.replaceChildren(
    ...PRESETS.map((preset) => el('option', { value: preset.id }, [preset.label])),
    el('option', { value: 'custom' }, ['Custom range…']),
  );
  view.refresh.replaceChildren(...REFRESH_CHOICES.map((choice) => el('option', { value: String(choice.seconds) }, [choice.label])));

  view.signInForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = view.tokenInput.value.trim();
    if (token === '') {
      showSignIn('Enter the token that timemark serve or npm start printed (it starts with xaat- or xapt-).');
      return;
    }
    void signIn(token, readPageLink(location.search));
  });
  view.signOut.addEventListener('click', () => signedOut('Signed out. The token was removed from this tab.'));
  view.dashboardPicker.addEventListener('change', () => {
    if (!session) return;
    if (session.dirty && !window.confirm('Discard the unsaved changes of this dashboard?')) {
      view.dashboardPicker.value = session.uid ?? '';
      return;
    }
    const uid = view.dashboardPicker.value;
    if (uid === '') {
      openSpec(newDashboardSpec(), '/');
      say('New dashboard.');
    } else void openDashboard(uid);
  });
  view.dashboardName.addEventListener('input', () => setDirty(true));
  view.save.addEventListener('click', () => void save(false));
  view.saveAsNew.addEventListener('click', () => void save(true));
  view.remove.addEventListener('click', () => void remove());
  view.range.addEventListener('change', () => {
    if (!session) return;
    if (view.range.value === 'custom') {
      const { startMs, endMs } = resolveRange(session.range, Date.now());
      session.range = { kind: 'custom', startMs, endMs };
      renderRange();
      view.rangeStart.focus();
    } else {
      session.range = { kind: 'preset', preset: view.range.value as (typeof PRESETS)[number]['id'] };
      renderRange();
      void refreshAll();
    }
    setDirty(true);
  });
  view.applyRange.addEventListener('click', () => {
    if (!session) return;
    const startMs = fromLocalInput(view.rangeStart.value);
    const endMs = fromLocalInput(view.rangeEnd.value);
    if (startMs === undefined || endMs === undefined || endMs <= startMs) {
      fail('The custom range needs a start and an end, with the start before the end.');
      return;
    }
    session.range = { kind: 'custom', startMs, endMs };
    setDirty(true);
    say(`Showing ${new Date(startMs).toLocaleString()} to ${new Date(endMs).toLocaleString()}.`);
    void refreshAll();
  });
  view.refresh.addEventListener('change', () => {
    restartTimer();
    setDirty(true);
    say(Number(view.refresh.value) > 0 ? `Live refresh: ${view.refresh.selectedOptions[0]?.textContent?.toLowerCase() ?? ''}.` : 'Live refresh is off.');
  });
  view.refreshNow.addEventListener('click', () => void refreshAll());
  view.showAnnotations.addEventListener('change', () => {
    for (const panel of session?.panels ?? []) panel.setAnnotationsVisible(view.showAnnotations.checked);
    setDirty(true);
  });
  view.addChart.addEventListener('click', () => {
    if (!session) return;
    const last = session.panels.at(-1)?.spec();
    const dataset = (last ? sourceDataset(last.apl) : undefined) ?? session.datasets[0];
    const panel = addPanel({ id: newChartId(), name: dataset ?? 'Events', apl: dataset === undefined ? '' : defaultQuery(dataset), annotationDatasets: undefined });
    setDirty(true);
    panel.focus();
    void panel.refresh();
  });
}

/** The DORA panel starts from the datasets the first chart draws annotations from. */
function doraDatasets(): string[] {
  const first = session?.panels[0]?.spec();
  if (!first) return session?.datasets.slice(0, 1) ?? [];
  const charted = sourceDataset(first.apl);
  return first.annotationDatasets ?? (charted === undefined ? [] : [charted]);
}

const dora = createDoraPanel(view.dora, { api: () => session?.api, defaultDatasets: doraDatasets });

function boot(): void {
  wireControls();
  const { token: fromLink, rest } = takeTokenFromFragment(location.hash);
  if (fromLink !== undefined) {
    sessionStorage.setItem(TOKEN_KEY, fromLink);
    // The token leaves the address bar (and so the history) at once.
    history.replaceState(null, '', `${location.pathname}${location.search}${rest}`);
  }
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) void signIn(token, readPageLink(location.search));
  else showSignIn();
}

boot();
