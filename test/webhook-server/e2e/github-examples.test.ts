/**
 * Every delivery GitHub documents, for github.com and each GitHub Enterprise Server release in
 * @octokit/webhooks-examples, signed and sent to the real bridge: each one gets a 2xx — recorded
 * when the bridge uses it, ignored with a reason otherwise — and what it records reaches the real
 * local service without a single dead letter.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFacts } from '../../../src/common/annotation-facts.js';
import { useLocalService } from '../../helpers/local-service.js';
import { outboxDrained, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { githubSignature } from '../helpers/github.js';

interface WebhookDefinition {
  name: string;
  actions: string[];
  examples: Array<Record<string, unknown>>;
}

const require = createRequire(import.meta.url);
const CATALOGUES = ['api.github.com', 'ghes-31', 'ghes-32', 'ghes-33', 'ghes-34', 'ghes-35'] as const;
/** The events the bridge turns into spans; every other event is answered 200 and ignored. */
const USED_EVENTS = new Set(['deployment', 'deployment_status', 'workflow_run']);

interface Delivery {
  catalogue: string;
  event: string;
  action: string | undefined;
  payload: Record<string, unknown>;
}

/**
 * The documented examples, plus one per documented action that has no example of its own (the
 * first example of the event with that action), so that every event and action is sent.
 */
function deliveries(): Delivery[] {
  const all: Delivery[] = [];
  for (const catalogue of CATALOGUES) {
    const definitions = require(`@octokit/webhooks-examples/${catalogue}/index.json`) as WebhookDefinition[];
    for (const definition of definitions) {
      const covered = new Set<string | undefined>();
      for (const example of definition.examples) {
        const action = typeof example.action === 'string' ? example.action : undefined;
        covered.add(action);
        all.push({ catalogue, event: definition.name, action, payload: example });
      }
      const first = definition.examples[0];
      for (const action of definition.actions) {
        if (covered.has(action) || first === undefined) continue;
        all.push({ catalogue, event: definition.name, action, payload: { ...first, action } });
      }
    }
  }
  return all;
}

describe("GitHub's documented webhook examples", () => {
  const service = useLocalService();
  let bridge: TestBridge;
  const sent = deliveries();
  const replies: Array<{ delivery: Delivery; status: number; body: Record<string, unknown> }> = [];

  beforeAll(async () => {
    bridge = await startTestBridge({ serviceUrl: service.url, token: service.token });
    for (const delivery of sent) {
      const body = JSON.stringify(delivery.payload);
      const enterprise = delivery.catalogue.startsWith('ghes-');
      const reply = await bridge.post('github', body, {
        'user-agent': 'GitHub-Hookshot/044aadd',
        'x-github-event': delivery.event,
        'x-github-delivery': randomUUID(),
        'x-github-hook-id': '292430182',
        'x-hub-signature-256': githubSignature(body),
        ...(enterprise ? { 'x-github-enterprise-host': 'octocoders.github.io' } : {}),
      });
      replies.push({ delivery, ...reply });
    }
  }, 120_000);
  afterAll(async () => {
    await bridge?.close();
  });

  it('covers every event of github.com and of each GitHub Enterprise Server release', () => {
    for (const catalogue of CATALOGUES) {
      const events = new Set(sent.filter((delivery) => delivery.catalogue === catalogue).map((delivery) => delivery.event));
      expect(events.size, catalogue).toBeGreaterThanOrEqual(45);
      expect([...USED_EVENTS].filter((event) => events.has(event)), catalogue).toEqual([...USED_EVENTS]);
    }
  });

  it('answers every delivery with a 2xx', () => {
    const refused = replies.filter((reply) => reply.status >= 300).map(({ delivery, status, body }) => `${delivery.catalogue} ${delivery.event}.${delivery.action ?? ''}: ${status} ${String(body.message)}`);
    expect(refused).toEqual([]);
  });

  it('records the deployments, deployment statuses and workflow runs it uses', () => {
    const used = replies.filter((reply) => USED_EVENTS.has(reply.delivery.event));
    for (const reply of used) expect([reply.delivery.catalogue, reply.delivery.event, reply.status, reply.body.status]).toEqual([reply.delivery.catalogue, reply.delivery.event, 202, 'accepted']);
  });

  it('ignores every other event with a reason', () => {
    const others = replies.filter((reply) => !USED_EVENTS.has(reply.delivery.event));
    expect(others.length).toBeGreaterThan(500);
    for (const reply of others) {
      expect(reply.status).toBe(200);
      expect(reply.body.status).toBe('ignored');
      expect(String(reply.body.message)).toMatch(new RegExp(`^(GitHub event "${reply.delivery.event}" is not used by the bridge\\.|ping: the webhook is set up\\.)$`));
    }
  });

  it('applies everything it recorded to the service, dead-lettering nothing', async () => {
    await outboxDrained(() => bridge.store.counts(), 30_000);
    const annotations = await service.annotations.list({ datasets: ['deploys'], start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' });
    // One annotation per episode, every episode applied: the service accepted all that the bridge rendered.
    expect(await bridge.store.counts()).toEqual({ pending: 0, dead: 0, synced: annotations.length });
    expect(annotations.length).toBeGreaterThanOrEqual(4);
  });

  it('closes a workflow run that completed with a null conclusion, and says its outcome is unknown', async () => {
    const completedWithoutConclusion = replies.filter(
      (reply) => reply.delivery.event === 'workflow_run' && (reply.delivery.payload.workflow_run as { conclusion: unknown }).conclusion === null && reply.delivery.action === 'completed',
    );
    expect(completedWithoutConclusion.length).toBeGreaterThanOrEqual(6);
    for (const reply of completedWithoutConclusion) expect(reply.status).toBe(202);
    await outboxDrained(() => bridge.store.counts(), 30_000);
    const runs = (await service.annotations.list({ datasets: ['deploys'], start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' })).filter(
      (annotation) => readFacts(annotation.description).outcome === 'unknown',
    );
    expect(runs.length).toBeGreaterThanOrEqual(1);
    for (const run of runs) expect(run.endTime).toBeDefined();
  });

  it('keeps the deployments of github.com and of an Enterprise Server apart', async () => {
    await outboxDrained(() => bridge.store.counts(), 30_000);
    const dotcom = await bridge.store.episodes('github:Codertocat/Hello-World:deployment:145988746');
    const enterprise = await bridge.store.episodes('github:octocoders.github.io/Codertocat/Hello-World:deployment:2');
    expect(dotcom.length).toBeGreaterThanOrEqual(1);
    expect(enterprise.length).toBeGreaterThanOrEqual(1);
    expect(new Set([...dotcom, ...enterprise].map((episode) => episode.annotationId)).size).toBe(dotcom.length + enterprise.length);
  });
});
