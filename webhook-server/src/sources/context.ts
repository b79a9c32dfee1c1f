/** Small helpers for the facts each source puts into `BridgeEvent.context` and titles. */

/** Builds a context from optional facts: missing or empty values are left out rather than written as "". */
export function buildContext(facts: Record<string, string | number | undefined>): Record<string, string> {
  const context: Record<string, string> = {};
  for (const [key, value] of Object.entries(facts)) {
    if (value === undefined || value === '') continue;
    context[key] = String(value);
  }
  return context;
}

/** Copies a map under a prefix: labels {severity: "page"} → {"labels.severity": "page"}. */
export function prefixed(prefix: string, values: Readonly<Record<string, string>>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) result[`${prefix}.${key}`] = value;
  return result;
}

/** The 7-character abbreviation people recognise from git tooling. */
export function shortSha(sha: string): string {
  return /^[0-9a-f]{8,}$/i.test(sha) ? sha.slice(0, 7) : sha;
}

/** The first non-empty string, for "prefer this link, then that one" rules. */
export function firstPresent(...values: (string | undefined)[]): string | undefined {
  return values.find((value) => value !== undefined && value.trim() !== '');
}
