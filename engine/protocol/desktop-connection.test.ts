/**
 * The page side of the desktop hand-off, over real MessageChannel ports (Node's global one: the
 * same structured clone and transfer semantics as the browser's and Electron's; no Node import,
 * since engine/protocol is the renderer's): a fake main makes a channel per request, serves its
 * engine end with an EngineHost, and posts the page end the way the preload does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINE_PORT_MESSAGE, type EngineExit } from './desktop-bridge.ts';
import { connectDesktopEngine, receiveEnginePort, type PageWindow, type PortMessageEvent } from './desktop-connection.ts';
import type { ProtocolError } from './errors.ts';
import { EngineHost } from './host.ts';
import { postEncoded, toWireData, type MessagePortLike } from './message-port-transport.ts';
import { sampleHandlers } from './testing/in-memory.ts';

type Port = InstanceType<typeof MessageChannel>['port1'];

class FakePage implements PageWindow {
  readonly listeners = new Set<(event: PortMessageEvent) => void>();
  addEventListener(_type: 'message', listener: (event: PortMessageEvent) => void): void {
    this.listeners.add(listener);
  }
  removeEventListener(_type: 'message', listener: (event: PortMessageEvent) => void): void {
    this.listeners.delete(listener);
  }
  /** A window message, delivered one task later as window.postMessage does. */
  post(data: unknown, port: Port, source: unknown = this): void {
    const event: PortMessageEvent = { source, data, ports: [port as unknown as MessagePortLike] };
    setTimeout(() => this.listeners.forEach((listener) => listener(event)));
  }
}

const open: Port[] = [];
afterEach(() => open.splice(0).forEach((port) => port.close()));

/** Main, the preload and one engine process per `restart()`, over real ports. */
function fakeDesktop(page: FakePage, options: { portFirst?: boolean; refuse?: string } = {}) {
  const exits = new Set<(exit: EngineExit) => void>();
  let engine = 1;
  let requests = 0;
  const bridge = {
    requestEnginePort: async () => {
      if (options.refuse !== undefined) throw new Error(options.refuse);
      const nonce = `nonce-${++requests}-${'x'.repeat(16)}`;
      const { port1, port2 } = new MessageChannel();
      open.push(port1, port2);
      const generation = engine;
      const handlers = sampleHandlers({ ping: async () => ({ protocolVersion: 1, now: generation }) });
      const host = new EngineHost(handlers, (data) => postEncoded(port1 as unknown as MessagePortLike, data));
      port1.on('message', (data: unknown) => host.receive(toWireData(data) ?? ''));
      page.post({ type: ENGINE_PORT_MESSAGE, nonce }, port2);
      if (!options.portFirst) await new Promise((resolve) => setTimeout(resolve, 5));
      return { nonce };
    },
    onEngineExit: (listener: (exit: EngineExit) => void) => {
      exits.add(listener);
      return () => void exits.delete(listener);
    },
  };
  return {
    bridge,
    listening: () => exits.size,
    restart: () => {
      engine++;
      exits.forEach((listener) => listener({ code: null, reason: 'the engine was restarted' }));
    },
  };
}

describe('desktop connection (page side of the port hand-off)', () => {
  it.each([
    ['the port arrives after the nonce', false],
    ['the port overtakes the nonce', true],
  ])('connects over the handed-over port when %s', async (_name, portFirst) => {
    const page = new FakePage();
    const client = await connectDesktopEngine(fakeDesktop(page, { portFirst }).bridge, page);
    expect(await client.call('ping', {})).toMatchObject({ now: 1 });
    expect(page.listeners.size).toBe(0);
  });

  it('takes only a port from its own window carrying its own nonce', async () => {
    const page = new FakePage();
    const { port1, port2 } = new MessageChannel();
    open.push(port1, port2);
    const bridge = {
      requestEnginePort: async () => {
        page.post({ type: ENGINE_PORT_MESSAGE, nonce: 'someone-elses-nonce-0000' }, port1);
        page.post({ type: ENGINE_PORT_MESSAGE, nonce: 'our-nonce-0000000000000' }, port1, { another: 'window' });
        page.post({ type: 'other', nonce: 'our-nonce-0000000000000' }, port1);
        page.post({ type: ENGINE_PORT_MESSAGE, nonce: 'our-nonce-0000000000000' }, port2);
        return { nonce: 'our-nonce-0000000000000' };
      },
      onEngineExit: () => () => undefined,
    };
    expect(await receiveEnginePort(bridge, page)).toBe(port2);
  });

  it('closes with the reason main gave when the engine exits, and a second connect reaches the new engine', async () => {
    const page = new FakePage();
    const desktop = fakeDesktop(page);
    const first = await connectDesktopEngine(desktop.bridge, page);
    const closed: ProtocolError[] = [];
    first.onClose((reason) => closed.push(reason));
    desktop.restart();
    expect(closed.map((e) => [e.code, e.message])).toEqual([['disconnected', 'the engine process ended: the engine was restarted']]);
    await expect(first.call('ping', {})).rejects.toMatchObject({ code: 'disconnected' });
    // The closed client no longer listens for exits; the reconnected one does.
    expect(desktop.listening()).toBe(0);
    const second = await connectDesktopEngine(desktop.bridge, page);
    expect(await second.call('ping', {})).toMatchObject({ now: 2 });
    expect(desktop.listening()).toBe(1);
  });

  it('rejects, naming main\'s answer, when no engine is running, and stops listening', async () => {
    const page = new FakePage();
    const desktop = fakeDesktop(page, { refuse: 'the engine is not running (exit code 9)' });
    const failure = await connectDesktopEngine(desktop.bridge, page).catch((error: ProtocolError) => error);
    expect(failure).toMatchObject({ code: 'disconnected', message: 'no engine port: the engine is not running (exit code 9)' });
    expect(page.listeners.size).toBe(0);
    expect(desktop.listening()).toBe(0);
  });

  it('rejects when the engine exits while its port is on the way', async () => {
    const page = new FakePage();
    const exits: Array<(exit: EngineExit) => void> = [];
    const bridge = {
      requestEnginePort: async () => {
        exits.forEach((listener) => listener({ code: 9, reason: 'the engine process stopped unexpectedly (exit code 9)' }));
        return { nonce: 'a-nonce-that-never-comes' };
      },
      onEngineExit: (listener: (exit: EngineExit) => void) => (exits.push(listener), () => undefined),
    };
    await expect(connectDesktopEngine(bridge, page)).rejects.toMatchObject({ code: 'disconnected', message: expect.stringContaining('exit code 9') });
    expect(page.listeners.size).toBe(0);
  });
});
