#!/usr/bin/env node
/**
 * Writes the inputs and outputs tables of the action's page, docs/action.md (the action's
 * README), from action.yml, so the two cannot disagree: `node src/action/tools/render-readme.mjs`
 * (`npm run docs:action`) rewrites the page, `--check` only reports (exit 1) when it is out of
 * date, as the test does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const PAGE = 'docs/action.md';
const pagePath = join(repoRoot, PAGE);
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

export function updatePage(page, reference) {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${PAGE} lacks the markers ${START} … ${END}.`);
  return `${page.slice(0, start + START.length)}\n${reference}\n${page.slice(end)}`;
}

const isScript = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isScript) {
  const page = readFileSync(pagePath, 'utf8');
  const updated = updatePage(page, renderReference(readFileSync(join(repoRoot, 'action.yml'), 'utf8')));
  if (process.argv.includes('--check')) {
    if (updated !== page) {
      console.error(`${PAGE}'s inputs/outputs tables differ from action.yml. Run "npm run docs:action" and commit ${PAGE}.`);
      process.exitCode = 1;
    }
  } else if (updated !== page) {
    writeFileSync(pagePath, updated);
  }
}
