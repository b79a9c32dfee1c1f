import { describe, expect, it } from 'vitest';
import { run } from '../helpers/child-process.js';

describe("the action page's reference (docs/action.md)", () => {
  it('lists every input and output exactly as action.yml describes them (run "npm run docs:action" when this fails)', async () => {
    const check = await run(process.execPath, ['src/action/tools/render-readme.mjs', '--check']);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
  });
});
