import { describe, expect, it } from 'vitest';
import { redactUrl, redactUrlsIn } from '../../src/common/redact-url.js';

describe('redactUrl', () => {
  it.each([
    ['http://user:secret@127.0.0.1:8080/prefix', 'http://127.0.0.1:8080/prefix'],
    ['https://token@api.example.com', 'https://api.example.com'],
    ['postgres://root:pw@db.internal:5432/test?sslmode=require', 'postgres://db.internal:5432/test?sslmode=require'],
    ['http:user:secret@example.com/x', 'http://example.com/x'],
    ['http://user:se cret@exa mple.com', 'http://exa mple.com'],
    ['not a url, but user:secret@host', 'not a url, but host'],
  ])('shows %s as %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it('leaves a URL without userinfo exactly as written', () => {
    for (const url of ['http://127.0.0.1:8080', 'https://api.axiom.co/', 'http://host/path/a:b@c', 'api.axiom.co']) expect(redactUrl(url)).toBe(url);
  });
});

describe('redactUrlsIn', () => {
  it('removes the userinfo of every URL quoted in a text, and nothing else', () => {
    expect(redactUrlsIn('Request cannot be constructed from a URL that includes credentials: http://u:p@127.0.0.1:1/admin; also "postgres://root:pw@db/x".')).toBe(
      'Request cannot be constructed from a URL that includes credentials: http://127.0.0.1:1/admin; also "postgres://db/x".',
    );
    expect(redactUrlsIn('mail me at someone@example.com, see https://example.com/a@b')).toBe('mail me at someone@example.com, see https://example.com/a@b');
  });
});
