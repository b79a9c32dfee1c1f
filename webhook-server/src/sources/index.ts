/** Every event source the bridge accepts, by the name used in its route (`/webhooks/<name>`). */

import { alertmanagerSource } from './alertmanager.js';
import { argocdSource } from './argocd.js';
import { fluxSource } from './flux.js';
import { githubSource } from './github.js';
import { gitlabSource } from './gitlab.js';
import { grafanaSource } from './grafana.js';
import { monitorSource } from './monitor.js';
import { pagerdutySource } from './pagerduty.js';
import type { SourceName, WebhookSource } from './types.js';
import { vercelSource } from './vercel.js';

export const SOURCES: Readonly<Record<SourceName, WebhookSource>> = {
  github: githubSource,
  gitlab: gitlabSource,
  vercel: vercelSource,
  argocd: argocdSource,
  flux: fluxSource,
  monitor: monitorSource,
  alertmanager: alertmanagerSource,
  grafana: grafanaSource,
  pagerduty: pagerdutySource,
};

export {
  alertmanagerSource,
  argocdSource,
  fluxSource,
  githubSource,
  gitlabSource,
  grafanaSource,
  monitorSource,
  pagerdutySource,
  vercelSource,
};
