/** Which addresses count as this machine only, and which Host headers a bind address answers to. */

const WILDCARDS = new Set(['0.0.0.0', '::']);

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** `host:port` as it appears in a URL or a Host header (IPv6 in brackets). */
export function hostWithPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Host header values the server accepts. Checking Host defeats DNS rebinding (a foreign page
 * whose name resolves to 127.0.0.1 sends its own name as Host). A wildcard bind is reachable
 * under names we cannot know, so it accepts any Host and relies on the token alone.
 */
export function allowedHosts(bind: string, port: number): ReadonlySet<string> | 'any' {
  if (WILDCARDS.has(bind)) return 'any';
  return new Set(['127.0.0.1', 'localhost', '::1', bind].map((name) => hostWithPort(name, port)));
}

/** The address to print for a browser: a wildcard bind is reachable on loopback too. */
export function displayHost(bind: string): string {
  return WILDCARDS.has(bind) ? '127.0.0.1' : bind;
}
