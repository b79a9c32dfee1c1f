/** `scheme://userinfo@` at the start, and `user:password@` anywhere. */
const SCHEME_USERINFO = /^(\s*[A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/;
const BARE_USERINFO = /[^\s/?#@]*:[^\s/?#@]*@/g;

/**
 * A URL as it may be shown — in banners, logs and error messages — with its userinfo
 * (`user:password@`) removed and the rest as written. Text that does not parse as a URL loses
 * anything shaped like userinfo too, so that a malformed URL with a password is not quoted whole.
 */
export function redactUrl(url: string): string {
  const stripped = url.replace(SCHEME_USERINFO, '$1');
  if (!URL.canParse(stripped)) return stripped.replace(BARE_USERINFO, '');
  const parsed = new URL(stripped);
  if (parsed.username === '' && parsed.password === '') return stripped;
  // Forms the pattern above misses, such as "http:user:secret@host", which URL reads as userinfo.
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}

const USERINFO_IN_TEXT = /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/?#@"'<>]*@/g;

/**
 * Text with the userinfo of every URL in it removed: for messages written by others (a library's
 * error, a log line) that may quote a URL they were given.
 */
export function redactUrlsIn(text: string): string {
  return text.replace(USERINFO_IN_TEXT, '$1');
}
