/**
 * What `crane://app/<path>` answers: a file of the renderer build, resolved inside the build
 * folder (`..`, encoded `..`, NUL, backslashes and symlinks that leave it are refused by the
 * same resolver `crane serve` uses), with the app's security headers on every response.
 * Node-only (no Electron import), so it is unit-tested without an Electron binary.
 */
import { readFile, stat } from 'node:fs/promises';
import { CONTENT_TYPES, contentType, resolveStaticPath } from '../../engine/server/static-files.ts';
import { APP_HOST, APP_SCHEME } from './app-origin.ts';
import { APP_RESPONSE_HEADERS } from './content-security.ts';

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>CRANE Studio</title></head>
<body><h1>CRANE Studio</h1><p>The UI has not been built. Run <code>npm start</code>, which builds it.</p></body></html>`;

/** The file a request URL names inside `root`, or undefined (wrong origin, escape, missing). */
export async function resolveAppPath(root: string, url: string): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return undefined;
  return resolveStaticPath(root, parsed.pathname);
}

export async function respondToAppRequest(root: string, url: string, method = 'GET'): Promise<Response> {
  if (method !== 'GET' && method !== 'HEAD') return reply(405, 'text/plain; charset=utf-8', 'method not allowed');
  if (!(await isDirectory(root))) return reply(200, CONTENT_TYPES['.html'] ?? '', NOT_BUILT_PAGE);
  const file = await resolveAppPath(root, url);
  if (file === undefined) return reply(404, 'text/plain; charset=utf-8', 'not found');
  try {
    // Renderer assets are small (the engine's data never comes through here), so whole-file reads are fine.
    const body = await readFile(file);
    return reply(200, contentType(file), method === 'HEAD' ? null : body);
  } catch {
    return reply(404, 'text/plain; charset=utf-8', 'not found');
  }
}

function reply(status: number, contentType: string, body: string | Uint8Array | null): Response {
  return new Response(body, { status, headers: { ...APP_RESPONSE_HEADERS, 'Content-Type': contentType } });
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isDirectory(), () => false);
}
