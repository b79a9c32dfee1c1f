import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { argocdSource } from '../../../webhook-server/src/sources/argocd.js';
import { MalformedPayloadError } from '../../../webhook-server/src/sources/types.js';
import { BEARER_SECRET, bearerVerifyCases } from './bearer-cases.js';
import { fixtureWebhook, modifiedBody, webhook } from './fixtures.js';
import { onlyEvent } from './helpers.js';

const TEMPLATE_FILE = fileURLToPath(new URL('../../../webhook-server/templates/argocd-notifications.yaml', import.meta.url));

const delivery = (name: string) => fixtureWebhook('argocd', name, { authorization: `Bearer ${BEARER_SECRET}` });

/**
 * Renders the shipped template the way Argo CD's Go templates do for the expressions it uses:
 * `{{.a.b}}` prints the value or `<no value>` when absent, `{{toJson .a.b}}` prints JSON.
 */
function renderTemplate(template: string, data: Record<string, unknown>): string {
  const lookup = (path: string): unknown =>
    path
      .slice(1)
      .split('.')
      .reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], data);
  return template.replace(/\{\{\s*(toJson\s+)?(\.[\w.]+)\s*\}\}/g, (_, toJson: string | undefined, path: string) => {
    const value = lookup(path);
    if (toJson !== undefined) return JSON.stringify(value ?? null);
    return value === undefined ? '<no value>' : String(value);
  });
}

function shippedBodyTemplate(): string {
  const configMap = parseYaml(readFileSync(TEMPLATE_FILE, 'utf8')) as { data: Record<string, string> };
  const template = parseYaml(configMap.data['template.timemark-sync']!) as { webhook: { timemark: { body: string } } };
  return template.webhook.timemark.body;
}

function application(operationState: Record<string, unknown>) {
  return {
    app: {
      metadata: { name: 'guestbook', namespace: 'argocd' },
      spec: { project: 'default' },
      status: { operationState, health: { status: 'Progressing' } },
    },
    context: { argocdUrl: 'https://argocd.example.com' },
  };
}

describe('argocd source: verify', () => {
  bearerVerifyCases(argocdSource, 'sync-running');
});

describe('argocd source: parse', () => {
  it('starts a span when a sync is running', () => {
    expect(onlyEvent(argocdSource.parse(delivery('sync-running')))).toEqual({
      source: 'argocd',
      dedupeKey: 'argocd:argocd/guestbook:2024-06-28T14:55:57.000Z:Running',
      correlationKey: 'argocd:argocd/guestbook:2024-06-28T14:55:57.000Z',
      phase: 'start',
      occurredAt: Date.parse('2024-06-28T14:55:57Z'),
      startedAt: Date.parse('2024-06-28T14:55:57Z'),
      category: 'deploy',
      title: 'Sync guestbook to 4e1d2c3',
      description: 'waiting for healthy state of apps/Deployment/guestbook-ui',
      url: 'https://argocd.example.com/applications/argocd/guestbook',
      context: {
        app: 'guestbook',
        namespace: 'argocd',
        project: 'default',
        revision: '4e1d2c3b5a69788f0e1d2c3b4a5968778e9f0a1b',
        sha: '4e1d2c3b5a69788f0e1d2c3b4a5968778e9f0a1b',
        phase: 'Running',
        health: 'Progressing',
      },
    });
  });

  it('finishes the span when the sync succeeds, dated by finishedAt', () => {
    const event = onlyEvent(argocdSource.parse(delivery('sync-succeeded')));
    expect(event).toMatchObject({
      phase: 'finish',
      outcome: 'success',
      occurredAt: Date.parse('2024-06-28T14:57:03Z'),
      startedAt: Date.parse('2024-06-28T14:55:57Z'),
    });
  });

  it('finishes the span with failure when the sync fails, and with error on Error', () => {
    expect(onlyEvent(argocdSource.parse(delivery('sync-failed'))).outcome).toBe('failure');
    const body = modifiedBody('argocd', 'sync-failed', (b) => (b.phase = 'Error'));
    expect(onlyEvent(argocdSource.parse(webhook(body))).outcome).toBe('error');
  });

  it('ignores a terminating operation', () => {
    expect(argocdSource.parse(delivery('sync-terminating'))).toMatchObject({ kind: 'ignored' });
  });

  it('gives start and finish of one sync the same correlation key', () => {
    const start = onlyEvent(argocdSource.parse(delivery('sync-running')));
    const finish = onlyEvent(argocdSource.parse(delivery('sync-succeeded')));
    expect(finish.correlationKey).toBe(start.correlationKey);
    expect(finish.dedupeKey).not.toBe(start.dedupeKey);
  });

  it('treats the second Succeeded of on-deployed as a duplicate of on-sync-succeeded', () => {
    const first = onlyEvent(argocdSource.parse(delivery('sync-succeeded')));
    const body = modifiedBody('argocd', 'sync-succeeded', (b) => (b.health = 'Healthy'));
    expect(onlyEvent(argocdSource.parse(webhook(body))).dedupeKey).toBe(first.dedupeKey);
  });

  it('keeps each sync of the same app apart', () => {
    const body = modifiedBody('argocd', 'sync-running', (b) => (b.startedAt = '2024-06-28T18:00:00Z'));
    const later = onlyEvent(argocdSource.parse(webhook(body)));
    expect(later.correlationKey).not.toBe(onlyEvent(argocdSource.parse(delivery('sync-running'))).correlationKey);
  });

  it('dates a finish without finishedAt by its arrival', () => {
    const body = modifiedBody('argocd', 'sync-succeeded', (b) => (b.finishedAt = '<no value>'));
    const hook = webhook(body);
    expect(onlyEvent(argocdSource.parse(hook)).occurredAt).toBe(hook.receivedAt);
  });

  it('reads the body the shipped template renders for a running and a finished sync', () => {
    const template = shippedBodyTemplate();
    const running = renderTemplate(
      template,
      application({ phase: 'Running', startedAt: '2024-06-28T14:55:57Z', message: 'syncing "guestbook-ui"\nwave 1' }),
    );
    const start = onlyEvent(argocdSource.parse(webhook(running)));
    expect(start).toMatchObject({ phase: 'start', description: 'syncing "guestbook-ui"\nwave 1' });
    expect(start.context.revision).toBeUndefined();

    const succeeded = renderTemplate(
      template,
      application({
        phase: 'Succeeded',
        startedAt: '2024-06-28T14:55:57Z',
        finishedAt: '2024-06-28T14:57:03Z',
        syncResult: { revision: '4e1d2c3b5a69788f0e1d2c3b4a5968778e9f0a1b' },
      }),
    );
    const finish = onlyEvent(argocdSource.parse(webhook(succeeded)));
    expect(finish).toMatchObject({
      phase: 'finish',
      outcome: 'success',
      correlationKey: start.correlationKey,
      url: 'https://argocd.example.com/applications/argocd/guestbook',
    });
    expect(finish.description).toBeUndefined();
  });

  it('rejects a body that is not JSON', () => {
    expect(() => argocdSource.parse(webhook('{"app": guestbook}'))).toThrow(MalformedPayloadError);
  });

  it.each([
    ['app', (b: Record<string, any>) => delete b.app],
    ['namespace', (b: Record<string, any>) => (b.namespace = '<no value>')],
    ['phase', (b: Record<string, any>) => delete b.phase],
    ['startedAt', (b: Record<string, any>) => (b.startedAt = '<no value>')],
    ['startedAt', (b: Record<string, any>) => (b.startedAt = 'Fri Jun 28 14:55:57 UTC 2024')],
  ])('names %s when it is missing or unreadable', (field, change) => {
    const hook = webhook(modifiedBody('argocd', 'sync-running', change));
    expect(() => argocdSource.parse(hook)).toThrow(MalformedPayloadError);
    expect(() => argocdSource.parse(hook)).toThrow(`"${field}"`);
  });
});
