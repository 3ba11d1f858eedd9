/**
 * Serves the renderer build directory read-only. Every URL path is resolved inside the root and
 * refused if it escapes it, by `..` (also percent-encoded) or by a symbolic link.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, isAbsolute, join, relative, sep } from 'node:path';

/** Content types of the files a renderer build holds (shared with Electron's crane:// handler). */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>CRANE Studio</title></head>
<body><h1>CRANE Studio</h1>
<p>The engine is running, but the UI has not been built yet, so there is nothing to show here.</p>
<p>Build the renderer, or pass <code>--ui DIR</code> to <code>crane serve</code> to point at a build.</p>
</body></html>`;

/** The file a URL path names inside `root`, or undefined when it would leave the root. */
export async function resolveStaticPath(root: string, pathname: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const candidate = join(root, decoded);
  if (!isInside(root, candidate)) return undefined;
  try {
    const [realRoot, real] = await Promise.all([realpath(root), realpath(candidate)]);
    if (!isInside(realRoot, real)) return undefined;
    return (await stat(real)).isDirectory() ? join(real, 'index.html') : real;
  } catch {
    return undefined;
  }
}

export async function serveStatic(root: string, pathname: string, response: ServerResponse, headOnly: boolean): Promise<void> {
  if (!(await isDirectory(root))) {
    if (pathname === '/' || pathname === '/index.html') return send(response, 200, '.html', NOT_BUILT_PAGE, headOnly);
    return send(response, 404, '.txt', 'not found', headOnly);
  }
  const file = await resolveStaticPath(root, pathname);
  const size = file === undefined ? undefined : await fileSize(file);
  if (file === undefined || size === undefined) return send(response, 404, '.txt', 'not found', headOnly);
  response.writeHead(200, { 'Content-Type': contentType(file), 'Content-Length': size });
  if (headOnly) return void response.end();
  createReadStream(file).on('error', () => response.destroy()).pipe(response);
}

function send(response: ServerResponse, status: number, ext: string, body: string, headOnly: boolean): void {
  response.writeHead(status, { 'Content-Type': CONTENT_TYPES[ext] ?? 'text/plain', 'Content-Length': Buffer.byteLength(body) });
  response.end(headOnly ? undefined : body);
}

export function contentType(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isDirectory(), () => false);
}

async function fileSize(path: string): Promise<number | undefined> {
  return stat(path).then((s) => (s.isFile() ? s.size : undefined), () => undefined);
}
