import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretFileError } from '../../src/common/errors.js';
import { loadOrCreateSecret } from '../../src/common/secret-file.js';
import { makeTempDir } from '../helpers/local-service.js';

const problem = (secret: string): string | undefined => (secret.startsWith('tok-') ? undefined : 'does not start with tok-');

describe('loadOrCreateSecret', () => {
  it('generates a secret once, readable by the owner only, and reads the same one back', () => {
    const dir = makeTempDir('secret');
    const file = join(dir, 'nested', 'token');
    const secret = loadOrCreateSecret(file, { prefix: 'tok-', what: 'test token', problem });
    expect(secret).toMatch(/^tok-[\w-]{32}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecret(file, { prefix: 'tok-', what: 'test token', problem })).toBe(secret);
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['', /^The test token file .*token is empty\. Delete .*token to have a new test token generated, or put a valid one in it\.$/],
    ['\n  \n', /is empty/],
    ['hello', /^The test token in .*token does not start with tok-\. Delete .*token to have a new test token generated/],
  ])('refuses a file holding %j rather than starting with no usable secret', (content, message) => {
    const dir = makeTempDir('secret');
    const file = join(dir, 'token');
    writeFileSync(file, content);
    expect(() => loadOrCreateSecret(file, { prefix: 'tok-', what: 'test token', problem })).toThrow(SecretFileError);
    expect(() => loadOrCreateSecret(file, { prefix: 'tok-', what: 'test token', problem })).toThrow(message);
    expect(readFileSync(file, 'utf8')).toBe(content);
    rmSync(dir, { recursive: true, force: true });
  });
});
