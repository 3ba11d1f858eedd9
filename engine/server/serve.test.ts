import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ProtocolError } from '../protocol/errors.ts';
import { sampleHandlers } from '../protocol/testing/in-memory.ts';
import { SAMPLE_PARAMS, SAMPLE_RESULTS } from '../protocol/testing/samples.ts';
import { createEngineHandlers } from '../handlers/engine-handlers.ts';
import { startServer, type RunningServer } from './serve.ts';
import { connectClient, rawGet, upgradeStatus, wsUrl } from './testing/http.ts';

let root: string;
let server: RunningServer;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'crane-serve-'));
  const ui = join(root, 'ui');
  await mkdir(join(ui, 'assets'), { recursive: true });
  await writeFile(join(ui, 'index.html'), '<!doctype html><title>studio</title>');
  await writeFile(join(ui, 'assets', 'app.js'), 'console.log(1)');
  await writeFile(join(root, 'secret.txt'), 'SECRET');
  await symlink(join(root, 'secret.txt'), join(ui, 'link.txt'));
  server = await startServer({ host: '127.0.0.1', port: 0, uiDir: ui, handlers: createEngineHandlers(), maxMessageBytes: 4096 });
});

afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const withToken = (path: string, token = server.token) => `${path}${path.includes('?') ? '&' : '?'}token=${token}`;

describe('HTTP requires the session token', () => {
  it('no token → 401, wrong token → 403, and neither shows the page', async () => {
    const none = await rawGet(server.origin, '/');
    expect(none.status).toBe(401);
    const wrong = await rawGet(server.origin, withToken('/', 'A'.repeat(43)));
    expect(wrong.status).toBe(403);
    expect(none.body + wrong.body).not.toContain('studio');
  });

  it('the printed URL loads the UI and sets an HttpOnly SameSite=Strict cookie that then serves assets', async () => {
    expect(server.url).toBe(`${server.origin}/?token=${server.token}`);
    expect(server.token.length).toBeGreaterThanOrEqual(43); // ≥ 256 bits in base64url
    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>studio</title>');
    const cookie = page.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const asset = await rawGet(server.origin, '/assets/app.js', { cookie: cookie.split(';')[0] ?? '' });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toContain('text/javascript');
  });

  it('a foreign Origin or Host is refused even with the token', async () => {
    expect((await rawGet(server.origin, withToken('/'), { origin: 'http://evil.example' })).status).toBe(403);
    const port = new URL(server.origin).port;
    expect((await rawGet(server.origin, withToken('/'), { host: `evil.example:${port}` })).status).toBe(403);
    expect((await rawGet(server.origin, withToken('/'), { origin: server.origin })).status).toBe(200);
  });

  it('only GET and HEAD', async () => {
    expect((await rawGet(server.origin, withToken('/'), {}, 'POST')).status).toBe(405);
    const head = await rawGet(server.origin, withToken('/'), {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it.each(['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/..%5csecret.txt', '/link.txt', '/%00'])('path traversal %s is refused', async (path) => {
    const response = await rawGet(server.origin, withToken(path));
    expect(response.status).toBe(404);
    expect(response.body).not.toContain('SECRET');
  });
});

describe('the WebSocket at /engine', () => {
  it('with the token (query or cookie) and its own Origin, ping works', async () => {
    const { socket, client } = connectClient(wsUrl(server.origin, `?token=${server.token}`), { origin: server.origin });
    expect((await (await client).call('ping', {})).protocolVersion).toBe(1);
    socket.close();
    const port = new URL(server.origin).port;
    const viaCookie = connectClient(wsUrl(server.origin), { origin: server.origin, cookie: `crane_session_${port}=${server.token}` });
    expect((await (await viaCookie.client).call('ping', {})).protocolVersion).toBe(1);
    viaCookie.socket.close();
  });

  it('refuses a missing or wrong token, a foreign or missing Origin, and other paths', async () => {
    const url = wsUrl(server.origin, `?token=${server.token}`);
    expect(await upgradeStatus(wsUrl(server.origin), { origin: server.origin })).toBe(401);
    expect(await upgradeStatus(wsUrl(server.origin, '?token=nope'), { origin: server.origin })).toBe(403);
    expect(await upgradeStatus(url, { origin: 'http://evil.example' })).toBe(403);
    expect(await upgradeStatus(url, {})).toBe(403);
    expect(await upgradeStatus(url.replace('/engine', '/other'), { origin: server.origin })).toBe(404);
  });

  it('a refused upgrade rejects the client with disconnected', async () => {
    const { client } = connectClient(wsUrl(server.origin), { origin: 'http://evil.example' });
    await expect(client).rejects.toMatchObject({ code: 'disconnected' });
  });

  it('answers oversized and malformed messages with typed errors and keeps serving', async () => {
    const socket = new WebSocket(wsUrl(server.origin, `?token=${server.token}`), { origin: server.origin });
    const replies: unknown[] = [];
    socket.on('message', (data: Buffer) => replies.push(JSON.parse(data.toString('utf8'))));
    await new Promise((resolve) => socket.on('open', resolve));
    socket.send(JSON.stringify({ id: 1, method: 'inspectCheckpoint', params: { dir: `/${'x'.repeat(5000)}` } }));
    socket.send('{"id": 2,');
    socket.send(JSON.stringify({ id: 3, method: 'ping', params: {} }));
    await expect.poll(() => replies.length).toBe(3);
    expect(replies[0]).toMatchObject({ id: 1, ok: false, error: { code: 'too-large' } });
    expect(replies[1]).toMatchObject({ event: 'error', payload: { code: 'bad-request' } });
    expect(replies[2]).toMatchObject({ id: 3, ok: true });
    socket.close();
  });
});

describe('browser mode details', () => {
  it('says the UI is not built when the build folder is missing', async () => {
    const bare = await startServer({ host: '127.0.0.1', port: 0, uiDir: join(root, 'missing'), handlers: createEngineHandlers() });
    try {
      const page = await fetch(bare.url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('UI has not been built yet');
    } finally {
      await bare.close();
    }
  });

  it('sends Float32Array results as one binary WebSocket message about the size of the data', async () => {
    const big = { rows: 48, cols: 128, values: new Float32Array(48 * 128).fill(0.5) };
    const handlers = sampleHandlers({ getGateMetrics: async () => ({ ...SAMPLE_RESULTS.getGateMetrics, layers: 48, groups: ['expert'], gate: big, sumReasoning: big, sumAgent: big, conflictShare: big, relativeDelta: big }) });
    const binary = await startServer({ host: '127.0.0.1', port: 0, uiDir: root, handlers });
    try {
      const socket = new WebSocket(wsUrl(binary.origin, `?token=${binary.token}`), { origin: binary.origin });
      const message = new Promise<{ data: Buffer; isBinary: boolean }>((resolve) => socket.on('message', (data: Buffer, isBinary) => resolve({ data, isBinary })));
      await new Promise((resolve) => socket.on('open', resolve));
      socket.send(JSON.stringify({ id: 1, method: 'getGateMetrics', params: { granularity: 'coarse' } }));
      const { data, isBinary } = await message;
      expect(isBinary).toBe(true);
      const floatBytes = 5 * big.values.byteLength;
      expect(data.byteLength).toBeGreaterThan(floatBytes);
      expect(data.byteLength).toBeLessThan(floatBytes + 1024);
      socket.close();
    } finally {
      await binary.close();
    }
  });

  it('a server restarted on the same port with the same token accepts the page cookie of the first run', async () => {
    const first = await startServer({ host: '127.0.0.1', port: 0, uiDir: root, handlers: sampleHandlers() });
    const page = await fetch(first.url);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const port = Number(new URL(first.origin).port);
    await first.close();
    const restarted = await startServer({ host: '127.0.0.1', port, uiDir: root, handlers: sampleHandlers(), token: first.token });
    try {
      const { socket, client } = connectClient(wsUrl(restarted.origin), { origin: restarted.origin, cookie });
      expect((await (await client).call('ping', {})).protocolVersion).toBe(1);
      socket.close();
      const fresh = await startServer({ host: '127.0.0.1', port: 0, uiDir: root, handlers: sampleHandlers() });
      expect(fresh.token).not.toBe(first.token);
      await fresh.close();
    } finally {
      await restarted.close();
    }
  });

  it('refuses a session token handed in that is too short to be secret', async () => {
    await expect(startServer({ host: '127.0.0.1', port: 0, uiDir: root, handlers: sampleHandlers(), token: 'guessable' })).rejects.toThrow(/at least 43/);
  });

  it('ProtocolError codes cross the socket intact', async () => {
    const { socket, client } = connectClient(wsUrl(server.origin, `?token=${server.token}`), { origin: server.origin });
    const engine = await client;
    await expect(engine.call('analyze', { projectDir: '/p', settings: SAMPLE_PARAMS.analyze.settings })).rejects.toEqual(
      new ProtocolError('not-found', '/p: does not exist'),
    );
    socket.close();
  });
});
