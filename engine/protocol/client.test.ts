import { describe, expect, it, vi } from 'vitest';
import { EngineClient } from './client.ts';
import { ProtocolError } from './errors.ts';
import { encodeMessage, type WireData } from './frame.ts';
import { connectInMemory, flush, sampleHandlers } from './testing/in-memory.ts';
import { SAMPLE_EVENTS, SAMPLE_RESULTS } from './testing/samples.ts';

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof ProtocolError ? error.code : `untyped: ${String(error)}`),
  );

describe('EngineClient against an EngineHost', () => {
  it('calls typed methods and gets validated results, binary fields included', async () => {
    const { client } = connectInMemory();
    const pong = await client.call('ping', {});
    expect(pong.protocolVersion).toBe(1);
    const spectrum = await client.call('spectrum', { layer: 1, key: 'ffn_input', tau: 0.03, steepness: 153 });
    expect(spectrum.sigmaRatio).toBeInstanceOf(Float32Array);
    expect([...spectrum.sigmaRatio]).toEqual([...SAMPLE_RESULTS.spectrum.sigmaRatio]);
  });

  it('delivers push events to subscribers until they unsubscribe', async () => {
    const { client, host } = connectInMemory();
    const progress = vi.fn();
    const off = client.on('progress', progress);
    host.emit('progress', SAMPLE_EVENTS.progress);
    await flush();
    off();
    host.emit('progress', SAMPLE_EVENTS.progress);
    await flush();
    expect(progress).toHaveBeenCalledExactlyOnceWith(SAMPLE_EVENTS.progress);
  });

  it('rejects with the host error code', async () => {
    const { client } = connectInMemory(sampleHandlers({ inspectCheckpoint: () => Promise.reject(new ProtocolError('not-found', 'gone')) }));
    expect(await codeOf(client.call('inspectCheckpoint', { dir: '/x' }))).toBe('not-found');
  });

  it('an aborted signal rejects at once and aborts the handler on the engine', async () => {
    let engineSignal: AbortSignal | undefined;
    const { client } = connectInMemory(
      sampleHandlers({
        verify: (_params, ctx) => {
          engineSignal = ctx.signal;
          return new Promise(() => undefined);
        },
      }),
    );
    const controller = new AbortController();
    const call = codeOf(client.call('verify', { method: { method: 'task_arithmetic', lambda: 0.3 } }, { signal: controller.signal }));
    await flush();
    controller.abort();
    expect(await call).toBe('cancelled');
    await flush();
    await flush();
    expect(engineSignal?.aborted).toBe(true);
  });

  it('refuses invalid params and oversized messages before sending', async () => {
    const send = vi.fn();
    const client = new EngineClient(send, 1024);
    expect(await codeOf(client.call('spectrum', { layer: -1, key: 'attn_input', tau: 0.03, steepness: 1 }))).toBe('invalid-params');
    expect(await codeOf(client.call('inspectCheckpoint', { dir: `/${'x'.repeat(2000)}` }))).toBe('too-large');
    expect(send).not.toHaveBeenCalled();
  });

  it('closing rejects pending calls with disconnected, tells onClose, and refuses later calls', async () => {
    const { client } = connectInMemory(sampleHandlers({ verify: () => new Promise(() => undefined) }));
    const closed = vi.fn();
    client.onClose(closed);
    const pending = codeOf(client.call('verify', { method: { method: 'slerp', t: 0.5 } }));
    client.close();
    expect(await pending).toBe('disconnected');
    expect(closed).toHaveBeenCalledOnce();
    expect(await codeOf(client.call('ping', {}))).toBe('disconnected');
  });
});

describe('EngineClient validates what the engine sends', () => {
  /** A client whose "engine" answers every request with `reply(id)`. */
  function clientAnswering(reply: (id: number) => unknown) {
    const client: EngineClient = new EngineClient((data: WireData) => {
      const id = JSON.parse(data as string).id as number;
      setTimeout(() => client.receive(encodeMessage(reply(id))), 0);
    });
    return client;
  }

  it('an invalid result rejects with bad-response', async () => {
    const client = clientAnswering((id) => ({ id, ok: true, result: { protocolVersion: 1 } }));
    expect(await codeOf(client.call('ping', {}))).toBe('bad-response');
  });

  it('invalid events and undecodable messages surface as error events', () => {
    const client = new EngineClient(() => undefined);
    const errors = vi.fn();
    const progress = vi.fn();
    client.on('error', errors);
    client.on('progress', progress);
    client.receive(encodeMessage({ event: 'progress', payload: { requestId: 1 } }));
    client.receive(encodeMessage({ event: 'surprise', payload: {} }));
    client.receive('not json');
    expect(progress).not.toHaveBeenCalled();
    expect(errors.mock.calls.map(([e]) => (e as { code: string }).code)).toEqual(['bad-response', 'bad-response', 'bad-response']);
  });

  it('a listener that throws does not starve the others', async () => {
    const client = new EngineClient(() => undefined);
    const second = vi.fn();
    const thrown: unknown[] = [];
    const onError = (error: unknown) => thrown.push(error);
    process.on('uncaughtException', onError);
    try {
      client.on('log', () => {
        throw new Error('listener bug');
      });
      client.on('log', second);
      client.receive(encodeMessage({ event: 'log', payload: SAMPLE_EVENTS.log }));
      await flush();
    } finally {
      process.off('uncaughtException', onError);
    }
    expect(second).toHaveBeenCalledOnce();
    expect(thrown).toEqual([expect.objectContaining({ message: 'listener bug' })]);
  });
});
