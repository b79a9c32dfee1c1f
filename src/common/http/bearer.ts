/**
 * Reads the token of an `Authorization: Bearer <token>` header (the scheme is case-insensitive,
 * RFC 9110); undefined when the header is missing, of another scheme or carries no token.
 */
export function parseBearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^[ \t]*Bearer[ \t]+(\S(?:.*\S)?)[ \t]*$/i.exec(header);
  return match?.[1];
}
