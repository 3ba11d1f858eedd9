import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EngineClient, ProtocolError } from '../protocol.ts';
import { superviseConnection, type SupervisorEvents } from './connection-supervisor.ts';
import type { EngineConnector } from './engine-api.ts';

/** A connector whose attempts fail while `up` is false; each success is a real EngineClient the test can close. */
function hostConnector() {
  const state = { up: false, clients: [] as EngineClient[], restartListeners: [] as (() => void)[] };
  const connector: EngineConnector = {
    kind: 'websocket',
    label: 'test',
    connect: async () => {
      if (!state.up) throw new ProtocolError('disconnected', 'nothing answers');
      const client = new EngineClient(() => undefined);
      state.clients.push(client);
      return client;
    },
    onEngineRestart: (listener) => (state.restartListeners.push(listener), () => undefined),
  };
  return { state, connector };
}

function recorder(open: SupervisorEvents['open'] = async () => undefined) {
  const log: string[] = [];
  const events: SupervisorEvents = {
    connecting: (reconnecting) => void log.push(reconnecting ? 'reconnecting' : 'connecting'),
    open: async (api, reconnected) => {
      log.push(reconnected ? 'reopened' : 'opened');
      await open(api, reconnected);
    },
    lost: (reason, retryInMs) => void log.push(`lost "${reason}", retry in ${retryInMs}`),
  };
  return { log, events };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('superviseConnection', () => {
  it('retries with growing delays until the engine answers, then reconnects after a close with the delays reset', async () => {
    const { state, connector } = hostConnector();
    const { log, events } = recorder();
    const supervisor = superviseConnection(connector, events, [10, 20, 40]);
    await vi.advanceTimersByTimeAsync(10 + 20 + 40 + 40);
    state.up = true;
    await vi.advanceTimersByTimeAsync(40);
    expect(log).toEqual([
      'connecting', 'lost "nothing answers", retry in 10',
      'connecting', 'lost "nothing answers", retry in 20',
      'connecting', 'lost "nothing answers", retry in 40',
      'connecting', 'lost "nothing answers", retry in 40',
      'connecting', 'lost "nothing answers", retry in 40',
      'connecting', 'opened',
    ]);
    log.length = 0;
    state.clients[0]?.close(new ProtocolError('disconnected', 'the engine process ended'));
    await vi.advanceTimersByTimeAsync(10);
    expect(log).toEqual(['lost "the engine process ended", retry in 10', 'reconnecting', 'reopened']);
    expect(state.clients).toHaveLength(2);
    supervisor.stop();
  });

  it('an open() that fails (ping refused) is a failed attempt; a connection that closes mid-open retries once', async () => {
    const { state, connector } = hostConnector();
    state.up = true;
    let calls = 0;
    const { log, events } = recorder(async (api) => {
      calls += 1;
      if (calls === 1) throw new ProtocolError('bad-response', 'ping: wrong protocol');
      if (calls === 2) {
        (api as EngineClient).close(new ProtocolError('disconnected', 'closed during open'));
        await api.call('ping', {});
      }
    });
    const supervisor = superviseConnection(connector, events, [5]);
    await vi.advanceTimersByTimeAsync(20);
    expect(log).toEqual(['connecting', 'opened', 'lost "ping: wrong protocol", retry in 5', 'connecting', 'opened', 'lost "closed during open", retry in 5', 'connecting', 'opened']);
    supervisor.stop();
  });

  it('retryNow and a host-announced engine restart skip the wait; stop ends the retries', async () => {
    const { state, connector } = hostConnector();
    const { log, events } = recorder();
    const supervisor = superviseConnection(connector, events, [60_000]);
    await vi.advanceTimersByTimeAsync(0);
    state.up = true;
    supervisor.retryNow();
    await vi.advanceTimersByTimeAsync(0);
    expect(log.at(-1)).toBe('opened');
    state.up = false;
    state.clients[0]?.close();
    await vi.advanceTimersByTimeAsync(0);
    state.up = true;
    for (const listener of state.restartListeners) listener();
    await vi.advanceTimersByTimeAsync(0);
    expect(log.at(-1)).toBe('reopened');
    state.clients[1]?.close();
    supervisor.stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(log.at(-1)).toBe('lost "the engine connection closed", retry in 60000');
    expect(state.clients).toHaveLength(2);
  });
});
