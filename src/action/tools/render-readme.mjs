#!/usr/bin/env node
/**
 * Writes the inputs and outputs tables of the README's action section from action.yml, so the
 * two cannot disagree: `node src/action/tools/render-readme.mjs` rewrites README.md,
 * `--check` only reports (exit 1) when README.md is out of date, as the test does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const readmePath = join(repoRoot, 'README.md');
const START = '<!-- action:reference (generated from action.yml by src/action/tools/render-readme.mjs) -->';
const END = '<!-- /action:reference -->';

function cell(text) {
  return String(text).replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
}

export function renderReference(actionYaml) {
  const action = parse(actionYaml);
  const lines = ['| input | default | description |', '| --- | --- | --- |'];
  for (const [name, spec] of Object.entries(action.inputs)) {
    const fallback = spec.default === undefined ? '' : `\`${cell(spec.default)}\``;
    lines.push(`| \`${name}\` | ${fallback} | ${cell(spec.description)} |`);
  }
  lines.push('', '| output | description |', '| --- | --- |');
  for (const [name, spec] of Object.entries(action.outputs)) lines.push(`| \`${name}\` | ${cell(spec.description)} |`);
  return lines.join('\n');
}

export function updateReadme(readme, reference) {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the markers ${START} … ${END} in its action section.`);
  return `${readme.slice(0, start + START.length)}\n${reference}\n${readme.slice(end)}`;
}

const isScript = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isScript) {
  const readme = readFileSync(readmePath, 'utf8');
  const updated = updateReadme(readme, renderReference(readFileSync(join(repoRoot, 'action.yml'), 'utf8')));
  if (process.argv.includes('--check')) {
    if (updated !== readme) {
      console.error('README.md\'s action inputs/outputs tables differ from action.yml. Run "npm run docs:action" and commit README.md.');
      process.exitCode = 1;
    }
  } else if (updated !== readme) {
    writeFileSync(readmePath, updated);
  }
}
