import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { getFailOnError, getInputs, type InputSource } from '../../src/action/inputs.js';
import { runnerInputs } from './runner-simulation.js';

const NOW = Date.parse('2024-05-01T12:00:00.000Z');
const TOKEN = 'xaat-unit-test-token';

/** Inputs as the runner passes them: the given `with:` values over action.yml's defaults. */
function sourceOf(given: Record<string, string>): InputSource & { secrets: string[]; debugLines: string[] } {
  const values = runnerInputs({ axiomToken: TOKEN, ...given });
  const secrets: string[] = [];
  const debugLines: string[] = [];
  return {
    getInput: (name) => (values[name] ?? '').trim(),
    setSecret: (value) => secrets.push(value),
    debug: (message) => debugLines.push(message),
    secrets,
    debugLines,
  };
}

function inputsOf(given: Record<string, string>) {
  return getInputs(sourceOf(given), NOW);
}

function errorOf(given: Record<string, string>): string {
  try {
    inputsOf(given);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as InputError).message;
  }
  throw new Error(`Expected ${JSON.stringify(given)} to be rejected.`);
}

describe('getInputs', () => {
  it("reads the existing action's inputs with action.yml's defaults", () => {
    const inputs = inputsOf({ datasets: 'dataset_name', type: 'production-release' });

    expect(inputs).toEqual({
      mode: 'create',
      id: undefined,
      service: { url: 'https://api.axiom.co', token: TOKEN, orgId: undefined, timeoutMs: 10_000, retries: 3 },
      fields: {
        datasets: ['dataset_name'],
        type: 'production-release',
        time: undefined,
        endTime: undefined,
        title: undefined,
        description: undefined,
        url: undefined,
      },
      closeOn: 'always',
      jobStatus: 'success',
      failOnError: true,
      dryRun: false,
      gate: undefined,
    });
  });

  it('masks the token before it logs anything and never logs it', () => {
    const source = sourceOf({ datasets: 'a', type: 'deploy' });
    getInputs(source, NOW);

    expect(source.secrets).toEqual([TOKEN]);
    expect(source.debugLines.join('\n')).not.toContain(TOKEN);
  });

  it('trims, de-duplicates and accepts comma- and newline-separated dataset names', () => {
    expect(inputsOf({ datasets: ' prod , edge\nprod\nstaging\n', type: 'deploy' }).fields.datasets).toEqual(['prod', 'edge', 'staging']);
  });

  it('rejects an empty dataset name, quoting the value', () => {
    expect(errorOf({ datasets: 'prod,,edge', type: 'deploy' })).toBe(
      'Invalid datasets "prod,,edge". Expected a comma- or newline-separated list of names with none empty, e.g. "production,staging".',
    );
  });

  it.each([
    ['2024-05-01T14:00:00+02:00', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T12:00:00.123456789Z', '2024-05-01T12:00:00.123Z'],
    ['1714564800', '2024-05-01T12:00:00.000Z'],
    ['1714564800123', '2024-05-01T12:00:00.123Z'],
    ['now', '2024-05-01T12:00:00.000Z'],
    ['now-5m', '2024-05-01T11:55:00.000Z'],
  ])('reads time %s as %s', (text, expected) => {
    expect(inputsOf({ datasets: 'a', type: 'deploy', time: text }).fields.time).toBe(expected);
  });

  it('rejects a time it cannot read, naming the input and the accepted forms', () => {
    expect(errorOf({ datasets: 'a', type: 'deploy', endTime: 'yesterday' })).toBe(
      'Invalid endTime "yesterday". Expected an ISO 8601 / RFC 3339 timestamp such as 2024-05-01T12:00:00Z, Unix seconds or milliseconds, "now", or a relative time such as "now-5m".',
    );
  });

  it('rejects an endTime before time', () => {
    expect(errorOf({ datasets: 'a', type: 'deploy', time: '2024-01-01T01:00:00Z', endTime: '2024-01-01T00:00:00Z' })).toBe(
      'Invalid endTime 2024-01-01T00:00:00.000Z: it is before time 2024-01-01T01:00:00.000Z. Expected an end at or after the start.',
    );
  });

  it('rejects a type outside the service pattern', () => {
    expect(errorOf({ datasets: 'a', type: 'Deploy' })).toBe(
      'Invalid type "Deploy". Expected 1 to 256 lowercase letters, digits and dashes, e.g. "production-deploy".',
    );
  });

  it.each([
    ['title', 256],
    ['description', 512],
  ])('rejects a %s longer than %i characters', (name, limit) => {
    expect(inputsOf({ datasets: 'a', type: 'deploy', [name]: 'x'.repeat(limit) }).fields).toMatchObject({ [name]: 'x'.repeat(limit) });
    expect(errorOf({ datasets: 'a', type: 'deploy', [name]: 'x'.repeat(limit + 1) })).toBe(
      `Invalid ${name} "${'x'.repeat(39)}…: ${limit + 1} characters. Expected at most ${limit}.`,
    );
  });

  it('rejects a url longer than 512 characters and takes any shorter text, as the hosted service does', () => {
    expect(errorOf({ datasets: 'a', type: 'deploy', url: `https://example.com/${'x'.repeat(500)}` })).toMatch(/^Invalid url ".+…: 520 characters\. Expected at most 512\.$/);
    expect(inputsOf({ datasets: 'a', type: 'deploy', url: 'example.com/pr/1' }).fields.url).toBe('example.com/pr/1');
  });

  it('needs datasets and type to create', () => {
    expect(errorOf({ type: 'deploy' })).toMatch(/^Missing datasets\. Expected a comma- or newline-separated list of dataset names, e\.g\. "production"; create mode needs it\.$/);
    expect(errorOf({ datasets: 'a', mode: 'span' })).toMatch(/^Missing type\..*span mode needs it\.$/);
  });

  it('updates when an id is given without a mode, and needs a field to change', () => {
    expect(inputsOf({ id: 'ann_1', title: 'Renamed' })).toMatchObject({ mode: 'update', id: 'ann_1', fields: { title: 'Renamed' } });
    expect(errorOf({ id: 'ann_1' })).toBe(
      'Nothing to update in annotation "ann_1". Expected at least one of: datasets, type, time, endTime, title, description, url.',
    );
  });

  it('needs an id to update or close, and refuses one to create', () => {
    expect(errorOf({ mode: 'close' })).toMatch(/^Missing id\. Expected the id of an existing annotation.*close mode needs it\.$/);
    expect(errorOf({ mode: 'create', id: 'ann_1', datasets: 'a', type: 'deploy' })).toMatch(/^Invalid id "ann_1" with mode create\./);
  });

  it('names the choices of mode, closeOn and jobStatus', () => {
    expect(errorOf({ mode: 'upsert' })).toBe('Invalid mode "upsert". Expected one of: create, update, close, span.');
    expect(errorOf({ datasets: 'a', type: 'deploy', closeOn: 'sometimes' })).toBe('Invalid closeOn "sometimes". Expected one of: always, success, never.');
    expect(errorOf({ datasets: 'a', type: 'deploy', jobStatus: 'skipped' })).toBe('Invalid jobStatus "skipped". Expected one of: success, failure, cancelled.');
    expect(inputsOf({ datasets: 'a', type: 'deploy', mode: 'Span', jobStatus: 'Success' })).toMatchObject({ mode: 'span', jobStatus: 'success' });
  });

  it('reads booleans as @actions/core does and rejects anything else', () => {
    expect(inputsOf({ datasets: 'a', type: 'deploy', dryRun: 'TRUE', failOnError: 'False' })).toMatchObject({ dryRun: true, failOnError: false });
    expect(errorOf({ datasets: 'a', type: 'deploy', dryRun: 'yes' })).toBe('Invalid dryRun "yes". Expected true or false.');
  });

  it('rejects timeouts and retry counts out of range', () => {
    expect(errorOf({ datasets: 'a', type: 'deploy', timeoutMs: '0' })).toBe('Invalid timeoutMs "0". Expected a whole number from 1 to 600000.');
    expect(errorOf({ datasets: 'a', type: 'deploy', retries: '2.5' })).toBe('Invalid retries "2.5". Expected a whole number from 0 to 10.');
    expect(inputsOf({ datasets: 'a', type: 'deploy', retries: '0', timeoutMs: '2500' }).service).toMatchObject({ retries: 0, timeoutMs: 2500 });
  });

  it('rejects a defaulted input that the workflow blanked, rather than guessing', () => {
    expect(errorOf({ datasets: 'a', type: 'deploy', axiomUrl: '' })).toBe(
      'Missing axiomUrl: it is empty. Expected an http:// or https:// address such as https://api.axiom.co (leave it out to get the default).',
    );
    expect(errorOf({ datasets: 'a', type: 'deploy', axiomUrl: 'api.axiom.co' })).toBe(
      'Invalid axiomUrl "api.axiom.co". Expected an http:// or https:// address such as https://api.axiom.co.',
    );
  });

  it('needs a token unless it is a dry run', () => {
    expect(errorOf({ axiomToken: '', datasets: 'a', type: 'deploy' })).toMatch(/^Missing axiomToken\. Expected an API token/);
    expect(inputsOf({ axiomToken: '', datasets: 'a', type: 'deploy', dryRun: 'true' }).service.token).toBeUndefined();
  });

  it('turns the deploy gate on with impact-dataset, one signal per line, in span and close modes', () => {
    const inputs = inputsOf({
      mode: 'span',
      datasets: 'a',
      type: 'deploy',
      'impact-dataset': 'production',
      'impact-signals': 'countif(level == "error")\n\n  percentile(duration_ms, 99)  \n',
      'impact-window': '30m',
      'fail-on-regression': 'true',
    });
    expect(inputs.gate).toEqual({ dataset: 'production', signals: ['countif(level == "error")', 'percentile(duration_ms, 99)'], windowMs: 1_800_000, failOnRegression: true });
    expect(inputsOf({ mode: 'close', id: 'ann_1', 'impact-dataset': 'production' }).gate).toEqual({ dataset: 'production', signals: [], windowMs: 600_000, failOnRegression: false });
  });

  it('refuses gate inputs that cannot work, before any request', () => {
    expect(errorOf({ datasets: 'a', type: 'deploy', 'impact-dataset': 'production' })).toBe(
      'Invalid impact-dataset "production" with mode create. Expected mode span or close: the impact is measured after a span ends.',
    );
    expect(errorOf({ mode: 'span', datasets: 'a', type: 'deploy', 'fail-on-regression': 'true' })).toBe(
      'Missing impact-dataset. Expected the dataset whose events show the change\'s impact, e.g. "production"; fail-on-regression: true needs it.',
    );
    expect(errorOf({ mode: 'span', datasets: 'a', type: 'deploy', 'impact-dataset': 'p', 'impact-window': '30 minutes' })).toBe(
      'Invalid impact-window "30 minutes". Expected a duration such as "90m", "24h" or "2d".',
    );
    expect(errorOf({ mode: 'span', datasets: 'a', type: 'deploy', 'impact-dataset': 'p', 'impact-signals': 'count() by route' })).toMatch(
      /^Invalid impact-signals line 1 "count\(\) by route": "by" outside parentheses\./,
    );
    expect(errorOf({ mode: 'span', datasets: 'a', type: 'deploy', 'fail-on-regression': 'maybe' })).toBe('Invalid fail-on-regression "maybe". Expected true or false.');
  });

  it('reads failOnError on its own, so that other invalid inputs can still be reported as warnings', () => {
    expect(getFailOnError(sourceOf({ failOnError: 'false', type: 'Not Valid' }))).toBe(false);
  });
});
