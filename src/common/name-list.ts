import { InputError } from './errors.js';
import { previewJson } from './json-preview.js';

/**
 * Reads a list of names written comma- or newline-separated (possibly given several times):
 * trimmed, de-duplicated in first-seen order. An empty entry is an error rather than skipped,
 * because "a,,b" is more often a broken template variable than an intent.
 */
export function parseNameList(label: string, values: readonly string[]): string[] {
  const names: string[] = [];
  for (const value of values) {
    // A YAML block scalar ends with a newline, and people write one name per line with or
    // without a trailing comma: neither is an empty entry.
    const parts = value
      .replace(/,[ \t\r]*\n/g, '\n')
      .trimEnd()
      .split(/[,\n]/)
      .map((part) => part.trim());
    if (parts.some((part) => part === '')) {
      throw new InputError(
        `Invalid ${label} ${previewJson(value)}. Expected a comma- or newline-separated list of names with none empty, e.g. "production,staging".`,
      );
    }
    for (const part of parts) if (!names.includes(part)) names.push(part);
  }
  return names;
}
