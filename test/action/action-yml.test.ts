import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INPUT, OUTPUT } from '../../src/action/constants.js';
import { REPO_ROOT } from '../helpers/child-process.js';
import { readActionYaml } from './runner-simulation.js';

describe('action.yml', () => {
  const action = readActionYaml() as ReturnType<typeof readActionYaml> & {
    branding?: unknown;
    inputs: Record<string, { description?: string }>;
    outputs: Record<string, { description?: string }>;
  };

  it('declares exactly the inputs the code reads and the outputs it sets, each with a description', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(Object.values(INPUT).sort());
    expect(Object.keys(action.outputs).sort()).toEqual(Object.values(OUTPUT).sort());
    for (const [name, spec] of [...Object.entries(action.inputs), ...Object.entries(action.outputs)]) {
      expect(spec.description?.trim(), name).toBeTruthy();
    }
  });

  it("keeps every input name of axiomhq/annotation-action, so switching needs only a new uses:", () => {
    expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(['axiomToken', 'axiomUrl', 'datasets', 'type', 'time', 'endTime', 'title', 'description', 'url']));
  });

  it('runs the committed bundles on node24, with a post step and branding', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/main/index.js', post: 'dist/post/index.js' });
    expect(existsSync(join(REPO_ROOT, action.runs.main))).toBe(true);
    expect(existsSync(join(REPO_ROOT, action.runs.post))).toBe(true);
    expect(action.branding).toBeDefined();
  });
});
