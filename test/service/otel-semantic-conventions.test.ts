import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { isSemanticConventionAttribute } from '../../src/service/otel/layout.js';
import { SEMANTIC_CONVENTION_ATTRIBUTES, SEMANTIC_CONVENTION_TEMPLATE_PREFIXES } from '../../src/service/otel/semantic-conventions.js';

/**
 * The attribute names that decide which span attributes are custom (and go into the
 * `attributes.custom` map field): the generated list is the installed registry's, and the rule
 * reads names and templates as the conventions write them.
 */

const registry = createRequire(import.meta.url)('@opentelemetry/semantic-conventions/incubating') as Record<string, unknown>;

describe('the semantic conventions list', () => {
  it('is the installed registry (regenerate it with npm run otel:semconv)', () => {
    const names = Object.entries(registry)
      .filter(([key, value]) => key.startsWith('ATTR_') && typeof value === 'string')
      .map(([, value]) => value as string);
    expect([...SEMANTIC_CONVENTION_ATTRIBUTES]).toEqual([...new Set(names)].sort());
    const templates = Object.entries(registry).filter(([key, value]) => key.startsWith('ATTR_') && typeof value === 'function');
    expect(SEMANTIC_CONVENTION_TEMPLATE_PREFIXES.length).toBe(new Set(templates.map(([, template]) => (template as (key: string) => string)(''))).size);
  });

  it('tells convention attributes, current or deprecated, and templates from custom ones', () => {
    for (const name of ['http.request.method', 'http.method', 'http.status_code', 'user_agent.original', 'db.system.name', 'http.request.header.accept', 'k8s.pod.label.app']) {
      expect(isSemanticConventionAttribute(name), name).toBe(true);
    }
    for (const name of ['http.protocol', 'app.payment.amount', 'header.Accept', 'http.request.header.', 'custom']) {
      expect(isSemanticConventionAttribute(name), name).toBe(false);
    }
  });
});
