import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  bearerToken,
  header,
  matchesAnyHmac,
  matchesAnyToken,
  usableSecrets,
  verifyBearer,
} from '../../../webhook-server/src/sources/verify.js';
import { webhook } from './fixtures.js';

const BODY = Buffer.from('{"hello":"world"}\n', 'utf8');
const mac = (algorithm: 'sha1' | 'sha256', secret: string, prefix = '') =>
  createHmac(algorithm, secret).update(prefix).update(BODY).digest('hex');

describe('matchesAnyHmac', () => {
  it('matches the HMAC of the exact bytes under any of the secrets', () => {
    expect(matchesAnyHmac('sha256', ['a', 'b'], BODY, [mac('sha256', 'b')])).toBe(true);
    expect(matchesAnyHmac('sha1', ['a', 'b'], BODY, [mac('sha1', 'a')])).toBe(true);
  });

  it('matches when any of several candidate signatures is right', () => {
    expect(matchesAnyHmac('sha256', ['a'], BODY, ['0'.repeat(64), mac('sha256', 'a')])).toBe(true);
  });

  it('signs the prefix together with the body', () => {
    expect(matchesAnyHmac('sha256', ['a'], BODY, [mac('sha256', 'a', '1719792000:')], '1719792000:')).toBe(true);
    expect(matchesAnyHmac('sha256', ['a'], BODY, [mac('sha256', 'a')], '1719792000:')).toBe(false);
  });

  it('does not match a body that differs by one byte', () => {
    const other = Buffer.from(BODY);
    other[0] = 0x20;
    expect(matchesAnyHmac('sha256', ['a'], other, [mac('sha256', 'a')])).toBe(false);
  });

  it('treats signatures of the wrong length or not in hex as mismatches, not errors', () => {
    const right = mac('sha256', 'a');
    expect(matchesAnyHmac('sha256', ['a'], BODY, [right.slice(0, 62)])).toBe(false);
    expect(matchesAnyHmac('sha256', ['a'], BODY, [`${right}00`])).toBe(false);
    expect(matchesAnyHmac('sha256', ['a'], BODY, [`${right.slice(0, 63)}g`])).toBe(false);
    expect(matchesAnyHmac('sha256', ['a'], BODY, [''])).toBe(false);
  });

  it('matches nothing without secrets', () => {
    expect(matchesAnyHmac('sha256', [], BODY, [mac('sha256', '')])).toBe(false);
  });
});

describe('matchesAnyToken', () => {
  it('matches a token equal to any secret', () => {
    expect(matchesAnyToken(['first', 'second'], 'second')).toBe(true);
  });

  it('does not match prefixes, extensions or other case', () => {
    expect(matchesAnyToken(['secret'], 'secre')).toBe(false);
    expect(matchesAnyToken(['secret'], 'secret ')).toBe(false);
    expect(matchesAnyToken(['secret'], 'SECRET')).toBe(false);
  });

  it('compares multi-byte characters exactly', () => {
    expect(matchesAnyToken(['clé-secrète'], 'clé-secrète')).toBe(true);
    expect(matchesAnyToken(['clé-secrète'], 'cle-secrete')).toBe(false);
  });
});

describe('usableSecrets', () => {
  it('drops empty entries left by "a,,b" or a trailing comma', () => {
    expect(usableSecrets(['a', '', 'b', ''])).toEqual(['a', 'b']);
  });
});

describe('header and bearerToken', () => {
  it('treats an empty or blank header as missing', () => {
    expect(header(webhook('', { 'x-signature': '  ' }), 'X-Signature')).toBeUndefined();
  });

  it('reads the token after the Bearer scheme', () => {
    expect(bearerToken(webhook('', { authorization: 'Bearer  abc.def ' }))).toBe('abc.def');
    expect(bearerToken(webhook('', { authorization: 'BEARER abc' }))).toBe('abc');
    expect(bearerToken(webhook('', { authorization: 'Bearer' }))).toBeUndefined();
    expect(bearerToken(webhook('', { authorization: 'Basic YTpi' }))).toBeUndefined();
  });
});

describe('verifyBearer', () => {
  it('names the source when it has no secret', () => {
    expect(verifyBearer('argocd', webhook('', { authorization: 'Bearer x' }), [])).toEqual({
      ok: false,
      reason: 'No secret is configured for the argocd source.',
    });
  });

  it('says what is missing without a header', () => {
    expect(verifyBearer('argocd', webhook(''), ['s'])).toEqual({
      ok: false,
      reason: 'Missing "Authorization: Bearer <token>" header.',
    });
  });
});
