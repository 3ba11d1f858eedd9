/**
 * Nothing a client sends may end `crane serve`: unparseable request targets, bad Host and cookie
 * headers, and WebSocket frames that break the protocol, each sent over a raw TCP socket with and
 * without the session token. The server runs in this process, so an uncaught error in it fails
 * the run; after every case it must still answer an authenticated page load and an engine ping.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sampleHandlers } from '../protocol/testing/in-memory.ts';
import { startServer, type RunningServer } from './serve.ts';
import { connectClient, rawGet, wsUrl } from './testing/http.ts';
import { clientFrame, closeCode, exchange, statusOf, upgradeRequest, type FrameSpec } from './testing/raw-socket.ts';

let root: string;
let server: RunningServer;
let host: string;
const logged: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'crane-hostile-'));
  await mkdir(join(root, 'ui'));
  await writeFile(join(root, 'ui', 'index.html'), '<!doctype html><title>studio</title>');
  server = await startServer({ host: '127.0.0.1', port: 0, uiDir: join(root, 'ui'), handlers: sampleHandlers(), log: (line) => logged.push(line) });
  host = new URL(server.origin).host;
});

afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

afterEach(async () => {
  const page = await rawGet(server.origin, `/?token=${server.token}`);
  expect(page.status).toBe(200);
  expect(page.body).toContain('<title>studio</title>');
  const { socket, client } = connectClient(wsUrl(server.origin, `?token=${server.token}`), { origin: server.origin });
  expect((await (await client).call('ping', {})).protocolVersion).toBe(1);
  socket.close();
});

const request = (target: string, headers: Record<string, string>) =>
  `GET ${target} HTTP/1.1\r\n${Object.entries({ Connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
const tokened = (target: string) => `${target}${target.includes('?') ? '&' : '?'}token=${server.token}`;

describe('unparseable and hostile HTTP requests', () => {
  // [label, status without the token, status with it, target]
  it.each([
    ['//[', 401, 404, '//['],
    ['//%zz', 401, 404, '//%zz'],
    ['/%', 401, 404, '/%'],
    ['%', 400, 400, '%'],
    ['*', 400, 400, '*'],
    ['http://[/', 400, 400, 'http://[/'],
    ['//evil.example/', 401, 404, '//evil.example/'],
    ['an 8 kB path (past NAME_MAX, under the header limit)', 401, 404, `/${'a'.repeat(8_000)}`],
    ['a 20 kB path', 431, 431, `/${'a'.repeat(20_000)}`],
  ])('GET %s → %i without the token, %i with it', async (_label, without, withToken, target) => {
    expect(statusOf(await exchange(server.origin, request(target, { Host: host })))).toBe(without);
    expect(statusOf(await exchange(server.origin, request(tokened(target), { Host: host })))).toBe(withToken);
  });

  it.each([['['], ['evil.example'], ['%zz'], ['']])('Host %j is refused with and without the token', async (badHost) => {
    for (const target of ['/', tokened('/')]) {
      expect(statusOf(await exchange(server.origin, request(target, { Host: badHost })))).toBe(403);
    }
  });

  it('a request without Host is a client error', async () => {
    expect(statusOf(await exchange(server.origin, `GET ${tokened('/')} HTTP/1.1\r\nConnection: close\r\n\r\n`))).toBe(400);
  });

  it.each([
    ['a percent-garbled session cookie', 403, (port: string) => `crane_session_${port}=%zz%`],
    ['a session cookie without a value', 403, (port: string) => `=;;=; crane_session_${port}`],
    ['a 4 kB session cookie', 403, (port: string) => `crane_session_${port}=${'x'.repeat(4000)}`],
    ['only foreign cookies', 401, () => 'a=b; ;c'],
  ])('%s → %i, and the query token still works beside it', async (_label, without, cookieFor) => {
    const cookie = cookieFor(new URL(server.origin).port);
    expect(statusOf(await exchange(server.origin, request('/', { Host: host, Cookie: cookie })))).toBe(without);
    expect(statusOf(await exchange(server.origin, request(tokened('/'), { Host: host, Cookie: cookie })))).toBe(200);
  });

  it('a request body cut off by a reset costs only that connection', async () => {
    const post = `POST ${tokened('/')} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 1000\r\n\r\nhalf`;
    const { hostname, port } = new URL(server.origin);
    const socket = connect(Number(port), hostname, () => socket.end(post, () => socket.resetAndDestroy()));
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.on('close', resolve));
  });
});

describe('hostile WebSocket upgrades and frames', () => {
  const upgrade = (target: string, token: boolean) =>
    upgradeRequest(token ? tokened(target) : target, { Host: host, Origin: server.origin });

  it.each([
    ['//[', 404],
    ['//%zz', 404],
    ['%', 400],
    ['/engine/..%2f', 404],
  ])('upgrade to %s → %i, with and without the token', async (target, status) => {
    for (const token of [false, true]) expect(statusOf(await exchange(server.origin, upgrade(target, token)))).toBe(status);
  });

  it.each([['['], ['evil.example']])('upgrade with Host %j → 403, with and without the token', async (badHost) => {
    for (const target of ['/engine', tokened('/engine')]) {
      expect(statusOf(await exchange(server.origin, upgradeRequest(target, { Host: badHost, Origin: server.origin })))).toBe(403);
    }
  });

  // [label, close code, frame]
  const frames: [string, number, FrameSpec][] = [
    ['a text frame of invalid UTF-8', 1007, { opcode: 0x1, payload: Buffer.of(0xff, 0xfe, 0xc3, 0x28) }],
    ['an unmasked client frame', 1002, { opcode: 0x1, payload: Buffer.from('{"id":1}'), masked: false }],
    ['a reserved opcode', 1002, { opcode: 0x3, payload: Buffer.from('x') }],
    ['RSV1 without a negotiated extension', 1002, { opcode: 0x1, payload: Buffer.from('x'), rsv1: true }],
    ['a 64-bit length past the payload cap', 1009, { opcode: 0x2, payload: Buffer.alloc(0), claimedLength: 2n ** 40n }],
    ['a 64-bit length past 2^53', 1009, { opcode: 0x2, payload: Buffer.alloc(0), claimedLength: 2n ** 64n - 1n }],
  ];

  it.each(frames)('%s: without the token the upgrade is refused (401) and the frame ignored', async (_name, _code, spec) => {
    const reply = await exchange(server.origin, Buffer.concat([Buffer.from(upgrade('/engine', false)), clientFrame(spec)]));
    expect(statusOf(reply)).toBe(401);
  });

  it.each(frames)('%s: with the token that connection alone is closed with code %i', async (_name, code, spec) => {
    const before = logged.length;
    const reply = await exchange(server.origin, Buffer.concat([Buffer.from(upgrade('/engine', true)), clientFrame(spec)]));
    expect(statusOf(reply)).toBe(101);
    expect(closeCode(reply)).toBe(code);
    await expect.poll(() => logged.length).toBe(before + 1);
    expect(logged.at(-1)).toMatch(/^crane serve: closed an engine connection: /);
  });
});
