/**
 * The dashboard's address scheme, a public interface (monitors link their annotations to it),
 * in one module for the page, the service and the command line:
 *
 *   /?apl=<query>&start=<RFC 3339>&end=<RFC 3339>   one chart of that query over that range
 *   /?dashboard=<uid>                                a saved dashboard
 *   …#token=<token>                                  signs in; the page keeps the token in
 *                                                    sessionStorage and drops the fragment
 *
 * The token travels only in the fragment, which browsers never send to the server. Plain
 * TypeScript without Node or DOM imports: the browser loads the compiled module as it is.
 */

export interface PageLink {
  apl: string | undefined;
  start: string | undefined;
  end: string | undefined;
  dashboard: string | undefined;
}

export function readPageLink(search: string): PageLink {
  const params = new URLSearchParams(search);
  const value = (name: string): string | undefined => {
    const text = params.get(name);
    return text === null || text.trim() === '' ? undefined : text;
  };
  return { apl: value('apl'), start: value('start'), end: value('end'), dashboard: value('dashboard') };
}

/** The path and query of a link that opens `apl` over [startMs, endMs]; prefix the service's URL. */
export function queryLink(apl: string, startMs: number, endMs: number): string {
  const params = new URLSearchParams({ apl, start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString() });
  return `/?${params.toString()}`;
}

export function dashboardLink(uid: string): string {
  return `/?${new URLSearchParams({ dashboard: uid }).toString()}`;
}

/** Takes `token` out of a `#token=…` fragment; the rest of the fragment is kept. */
export function takeTokenFromFragment(hash: string): { token: string | undefined; rest: string } {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const token = params.get('token') ?? undefined;
  params.delete('token');
  const rest = params.toString();
  return { token: token === '' ? undefined : token, rest: rest === '' ? '' : `#${rest}` };
}

/** The address that opens the dashboard of the service at `serviceUrl`, signed in when `token` is given. */
export function dashboardAddress(serviceUrl: string, token?: string): string {
  return token === undefined ? `${serviceUrl}/` : `${serviceUrl}/#token=${encodeURIComponent(token)}`;
}
