/**
 * The path and session token of a request target, read without trusting it.
 *
 *   parseRequestTarget(request.url) → { pathname, token } | undefined   undefined → answer 400
 *
 * Only the origin form (`/path?query`) is a target this server serves. It is parsed after a fixed
 * scheme and host, never relative to a base: `new URL('//[', base)` reads `//[` as an authority
 * and throws, and a target must never name a host of its own.
 */
export interface RequestTarget {
  readonly pathname: string;
  /** `?token=` from the query, null when absent. */
  readonly token: string | null;
}

export function parseRequestTarget(raw: string | undefined): RequestTarget | undefined {
  if (raw === undefined || !raw.startsWith('/')) return undefined;
  let url: URL;
  try {
    url = new URL(`http://target.invalid${raw}`);
  } catch {
    return undefined;
  }
  return { pathname: url.pathname, token: url.searchParams.get('token') };
}
