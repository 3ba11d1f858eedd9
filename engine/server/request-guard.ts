/**
 * The gate every HTTP request and WebSocket upgrade passes: a Host this server answers to, no
 * foreign Origin, and the session token (from `?token=` on first load, then from an HttpOnly
 * SameSite=Strict cookie so asset requests and the WebSocket carry it without page script).
 */
import type { IncomingMessage } from 'node:http';
import type { RequestTarget } from './request-target.ts';
import { tokensEqual } from './session-token.ts';

export type GuardResult =
  | { readonly ok: true; readonly setCookie: string | undefined }
  | { readonly ok: false; readonly status: 401 | 403; readonly reason: string };

export interface GuardOptions {
  readonly token: string;
  readonly port: number;
  readonly hosts: ReadonlySet<string> | 'any';
}

export type RequestGuard = ReturnType<typeof createRequestGuard>;

export function createRequestGuard({ token, port, hosts }: GuardOptions) {
  // Cookies ignore ports: a per-port name keeps two servers on one machine from clobbering each other.
  const cookieName = `crane_session_${port}`;
  const cookie = `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`;

  return (request: IncomingMessage, target: RequestTarget, { websocket }: { websocket: boolean }): GuardResult => {
    const host = request.headers.host ?? '';
    if (hosts !== 'any' && !hosts.has(host)) return refuse(403, `unexpected Host "${host}"`);
    const origin = request.headers.origin;
    // Browsers always send Origin on WebSocket upgrades; on plain HTTP only cross-origin or POST-like requests do.
    if ((websocket || origin !== undefined) && origin !== `http://${host}`) return refuse(403, `foreign Origin "${origin ?? '(none)'}"`);
    const fromQuery = target.token;
    const fromCookie = readCookie(request.headers.cookie, cookieName);
    const candidate = fromQuery ?? fromCookie;
    if (candidate === undefined) return refuse(401, 'session token required');
    if (!tokensEqual(candidate, token)) return refuse(403, 'wrong session token');
    return { ok: true, setCookie: fromQuery !== null && !websocket ? cookie : undefined };
  };
}

function refuse(status: 401 | 403, reason: string): GuardResult {
  return { ok: false, status, reason };
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
