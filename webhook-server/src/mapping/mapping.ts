/**
 * Where an event goes: datasets, annotation type and title, decided by the configuration's rules.
 * A user with one dataset writes no rules at all; the defaults send everything there.
 */
import type { BridgeEvent } from '../sources/types.js';

export type MatchValue = string | readonly string[];

export interface MappingRule {
  /** Keys: `source`, `category`, or any context key (`repository`, `environment`, `labels.severity`…). Values may use `*`. */
  match: Readonly<Record<string, MatchValue>>;
  datasets?: readonly string[];
  type?: string;
  /** A template such as `{{repository}} → {{environment}}`; `{{title}}` is the source's own title. */
  title?: string;
  /** Drop matching events (answered 2xx, counted as ignored). */
  ignore?: boolean;
}

export interface MappingConfig {
  datasets: readonly string[];
  types: Readonly<Record<BridgeEvent['category'], string>>;
  rules: readonly MappingRule[];
}

export interface MappedTarget {
  datasets: string[];
  type: string;
  title: string;
}

export type MappingResult = { kind: 'target'; target: MappedTarget } | { kind: 'ignored'; reason: string };

export const DEFAULT_TYPES: MappingConfig['types'] = { deploy: 'deploy', incident: 'incident' };

/** The first rule whose every match key fits decides; what it leaves out comes from the defaults. */
export function mapEvent(config: MappingConfig, event: BridgeEvent): MappingResult {
  const facts = factsOf(event);
  const index = config.rules.findIndex((rule) => ruleMatches(rule, facts));
  const rule = index >= 0 ? config.rules[index] : undefined;
  if (rule?.ignore) return { kind: 'ignored', reason: `ignored by mapping rule ${index + 1}` };
  return {
    kind: 'target',
    target: {
      datasets: [...(rule?.datasets ?? config.datasets)],
      type: rule?.type ?? config.types[event.category],
      title: rule?.title !== undefined ? renderTemplate(rule.title, facts) : event.title,
    },
  };
}

function factsOf(event: BridgeEvent): Record<string, string> {
  return { ...event.context, source: event.source, category: event.category, title: event.title };
}

function ruleMatches(rule: MappingRule, facts: Record<string, string>): boolean {
  return Object.entries(rule.match).every(([key, expected]) => {
    const actual = facts[key];
    if (actual === undefined) return false;
    const patterns = typeof expected === 'string' ? [expected] : expected;
    return patterns.some((pattern) => globMatches(pattern, actual));
  });
}

export function globMatches(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  const regex = new RegExp(`^${pattern.split('*').map(escapeRegex).join('.*')}$`, 's');
  return regex.test(value);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `{{name}}` becomes the fact's value; an unknown name becomes empty rather than failing a delivery. */
export function renderTemplate(template: string, facts: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (_whole, name: string) => facts[name] ?? '').trim();
}
