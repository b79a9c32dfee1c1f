import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { run, REPO_ROOT, type RunResult } from '../helpers/child-process.js';

/**
 * Runs the committed bundles the way the GitHub runner does: inputs as INPUT_* variables (with
 * action.yml's defaults filled in), outputs, state and the job summary through files, and the
 * main step's saved state handed to the post step as STATE_* variables.
 */

interface ActionYaml {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string; post: string };
}

export function readActionYaml(): ActionYaml {
  return parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as ActionYaml;
}

/**
 * The inputs the runner would pass for a `with:` block: given values over action.yml's defaults.
 * The runner evaluates a default that is an expression in the step's context, for the main step
 * and again for the post step; `job.status` is "success" while the job runs and final in the
 * post step. Any other expression is refused, so a default the simulation cannot evaluate never
 * reaches a test as literal text.
 */
export function runnerInputs(given: Record<string, string>, job: { status: string } = { status: 'success' }): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(readActionYaml().inputs)) {
    if (spec.default !== undefined) inputs[name] = evaluateDefault(name, String(spec.default), job);
  }
  return { ...inputs, ...given };
}

function evaluateDefault(name: string, text: string, job: { status: string }): string {
  if (!text.includes('${{')) return text;
  if (/^\$\{\{\s*job\.status\s*\}\}$/.test(text)) return job.status;
  throw new Error(`The runner simulation cannot evaluate the default of ${name}: ${text}`);
}

export function loadFixture<T>(name: string): T {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'action', name), 'utf8')) as T;
}

/** A recorded runner environment for one job (GITHUB_* variables), with a chosen attempt number. */
export function githubEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return { ...loadFixture<Record<string, string>>('github-env.json'), ...overrides };
}

export interface StepResult extends RunResult {
  outputs: Record<string, string>;
  state: Record<string, string>;
  summary: string;
}

export interface JobFiles {
  dir: string;
  summaryPath: string;
  cleanup(): void;
}

/** One job's files: the summary file is shared by all steps of a job, as on the runner. */
export function createJobFiles(): JobFiles {
  const dir = mkdtempSync(join(tmpdir(), 'timemark-action-job-'));
  const summaryPath = join(dir, 'step_summary');
  writeFileSync(summaryPath, '');
  return { dir, summaryPath, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

let stepCounter = 0;

export async function runStep(options: {
  bundle: 'main' | 'post';
  inputs: Record<string, string>;
  env?: Record<string, string>;
  state?: Record<string, string>;
  job: JobFiles;
  node?: string;
  withSummaryFile?: boolean;
}): Promise<StepResult> {
  const step = ++stepCounter;
  const outputPath = join(options.job.dir, `output_${step}`);
  const statePath = join(options.job.dir, `state_${step}`);
  writeFileSync(outputPath, '');
  writeFileSync(statePath, '');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, GITHUB_OUTPUT: outputPath, GITHUB_STATE: statePath, ...options.env };
  if (options.withSummaryFile !== false) env.GITHUB_STEP_SUMMARY = options.job.summaryPath;
  for (const [name, value] of Object.entries(options.inputs)) env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  for (const [name, value] of Object.entries(options.state ?? {})) env[`STATE_${name}`] = value;
  const bundle = join(REPO_ROOT, 'dist', options.bundle, 'index.js');
  const result = await run(options.node ?? process.execPath, [bundle], { env });
  return {
    ...result,
    outputs: parseCommandFile(readFileSync(outputPath, 'utf8')),
    state: parseCommandFile(readFileSync(statePath, 'utf8')),
    summary: existsSync(options.job.summaryPath) ? readFileSync(options.job.summaryPath, 'utf8') : '',
  };
}

/** Reads GITHUB_OUTPUT / GITHUB_STATE: `name=value` lines and `name<<DELIMITER` heredocs. */
export function parseCommandFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc?.[1] && heredoc[2]) {
      const body: string[] = [];
      for (index++; index < lines.length && lines[index] !== heredoc[2]; index++) body.push(lines[index] ?? '');
      values[heredoc[1]] = body.join('\n');
    } else if (line.includes('=')) {
      values[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return values;
}

/** GitHub's workflow-command lines (`::error::…`, `::warning::…`) that a step printed. */
export function commands(stdout: string, kind: 'error' | 'warning' | 'debug'): string[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith(`::${kind}`))
    .map((line) => line.slice(line.indexOf('::', 2) + 2));
}

