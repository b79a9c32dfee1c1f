import { describe, expect, it } from 'vitest';
import { DEFAULT_TYPES, mapEvent, renderTemplate, type MappingConfig } from '../../../webhook-server/src/mapping/mapping.js';
import type { BridgeEvent } from '../../../webhook-server/src/sources/types.js';

const event: BridgeEvent = {
  source: 'github',
  dedupeKey: 'd',
  correlationKey: 'c',
  phase: 'start',
  occurredAt: 0,
  category: 'deploy',
  title: 'Deploy acme/shop',
  context: { repository: 'acme/shop', environment: 'production', 'labels.severity': 'critical' },
};

const config = (rules: MappingConfig['rules']): MappingConfig => ({ datasets: ['all'], types: DEFAULT_TYPES, rules });

describe('mapping', () => {
  it('sends everything to the default datasets with the default type and the source title when there are no rules', () => {
    expect(mapEvent(config([]), event)).toEqual({ kind: 'target', target: { datasets: ['all'], type: 'deploy', title: 'Deploy acme/shop' } });
  });

  it('lets the first matching rule choose datasets, type and a templated title', () => {
    const result = mapEvent(
      config([
        { match: { source: 'gitlab' }, datasets: ['never'] },
        { match: { repository: 'acme/*', environment: ['staging', 'production'] }, datasets: ['shop-prod'], type: 'release', title: '{{repository}} → {{environment}}' },
        { match: { source: 'github' }, datasets: ['later'] },
      ]),
      event,
    );
    expect(result).toEqual({ kind: 'target', target: { datasets: ['shop-prod'], type: 'release', title: 'acme/shop → production' } });
  });

  it('matches alert labels and drops events a rule ignores', () => {
    expect(mapEvent(config([{ match: { 'labels.severity': 'critical' }, ignore: true }]), event)).toMatchObject({ kind: 'ignored' });
  });

  it('renders unknown template names as empty rather than failing', () => {
    expect(renderTemplate('{{title}} ({{nope}})', { title: 'x' })).toBe('x ()');
  });
});
