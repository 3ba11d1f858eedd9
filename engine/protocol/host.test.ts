import { describe, expect, it } from 'vitest';
import { ProtocolError } from './errors.ts';
import { encodeMessage, type WireData } from './frame.ts';
import { flush, hostHarness, sampleHandlers } from './testing/in-memory.ts';
import { SAMPLE_PARAMS } from './testing/samples.ts';

const ping = (id: number) => JSON.stringify({ id, method: 'ping', params: {} });
const errorOf = (message: unknown) => (message as { error?: { code: string; message: string } }).error;

/** After any rejection the same host must still answer. */
async function expectStillServing(exchange: (data: WireData) => Promise<unknown[]>) {
  const [reply] = await exchange(ping(999));
  expect(reply).toMatchObject({ id: 999, ok: true, result: { protocolVersion: 1 } });
}

describe('EngineHost rejects bad messages with typed errors and keeps serving', () => {
  it.each([
    ['malformed JSON', '{"id": 1, "method": '],
    ['a JSON number', '42'],
    ['JSON null', 'null'],
    ['an array', '[1, 2]'],
    ['an envelope without an id', '{"method":"ping","params":{}}'],
    ['a negative id', '{"id":-1,"method":"ping","params":{}}'],
  ])('%s → error event bad-request', async (_what, data) => {
    const { exchange } = hostHarness();
    const replies = await exchange(data);
    expect(replies).toEqual([{ event: 'error', payload: { code: 'bad-request', message: expect.any(String) } }]);
    await expectStillServing(exchange);
  });

  it('an envelope with an id but extra fields → bad-request answering that id', async () => {
    const { exchange } = hostHarness();
    const [reply] = await exchange('{"id":4,"method":"ping","params":{},"x":1}');
    expect(reply).toMatchObject({ id: 4, ok: false, error: { code: 'bad-request' } });
  });

  it.each(['nope', 'toString', '__proto__', 'constructor'])('method %j → unknown-method', async (method) => {
    const { exchange } = hostHarness();
    const [reply] = await exchange(JSON.stringify({ id: 5, method, params: {} }));
    expect(reply).toMatchObject({ id: 5, ok: false, error: { code: 'unknown-method' } });
    await expectStillServing(exchange);
  });

  it('wrong params → invalid-params naming the field', async () => {
    const { exchange } = hostHarness();
    const [reply] = await exchange(JSON.stringify({ id: 6, method: 'spectrum', params: { layer: 'one', key: 'attn_input', tau: 0.03, steepness: 1 } }));
    expect(reply).toMatchObject({ id: 6, ok: false, error: { code: 'invalid-params' } });
    expect(errorOf(reply)?.message).toContain('params.layer');
    await expectStillServing(exchange);
  });

  it('oversized text and binary messages → too-large for their id, without decoding them', async () => {
    const { exchange } = hostHarness(sampleHandlers(), { maxMessageBytes: 1024 });
    const [text] = await exchange(JSON.stringify({ id: 7, method: 'openPair', params: { instruct: '/a'.repeat(600), thinking: '/b' } }));
    expect(text).toMatchObject({ id: 7, ok: false, error: { code: 'too-large' } });
    const [binary] = await exchange(encodeMessage({ id: 8, method: 'ping', params: { v: new Float32Array(1000) } }));
    expect(binary).toMatchObject({ id: 8, ok: false, error: { code: 'too-large' } });
    const [anonymous] = await exchange(`[${'0,'.repeat(1000)}0]`);
    expect(anonymous).toMatchObject({ event: 'error', payload: { code: 'too-large' } });
    await expectStillServing(exchange);
  });

  it('a second request with an id still in flight → bad-request', async () => {
    const { host, sent } = hostHarness(sampleHandlers({ inspectCheckpoint: () => new Promise(() => undefined) }));
    host.receive(JSON.stringify({ id: 9, method: 'inspectCheckpoint', params: { dir: '/x' } }));
    host.receive(JSON.stringify({ id: 9, method: 'ping', params: {} }));
    await flush();
    expect(sent).toEqual([{ id: 9, ok: false, error: { code: 'bad-request', message: 'request id 9 is already in flight' } }]);
  });

  it('survives hundreds of random inputs', async () => {
    const { exchange } = hostHarness();
    let state = 7;
    const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 300; i++) {
      const bytes = Uint8Array.from({ length: next() % 64 }, () => next() & 0xff);
      if (i % 3 === 0) bytes.set([0x43, 0x52, 0x46, 0x31].slice(0, bytes.length));
      const data = i % 2 === 0 ? bytes : new TextDecoder().decode(bytes);
      await exchange(data);
    }
    await expectStillServing(exchange);
  });
});

describe('EngineHost runs handlers', () => {
  it('answers with the validated result', async () => {
    const { exchange } = hostHarness();
    const [reply] = await exchange(JSON.stringify({ id: 1, method: 'getProjectState', params: {} }));
    expect(reply).toEqual({ id: 1, ok: true, result: null });
  });

  it('maps a thrown ProtocolError to its code and anything else to engine-error', async () => {
    const { exchange } = hostHarness(
      sampleHandlers({
        inspectCheckpoint: () => Promise.reject(new ProtocolError('not-found', 'no such folder')),
        openPair: () => Promise.reject(new Error('disk on fire')),
      }),
    );
    const [notFound] = await exchange(JSON.stringify({ id: 1, method: 'inspectCheckpoint', params: { dir: '/x' } }));
    expect(notFound).toEqual({ id: 1, ok: false, error: { code: 'not-found', message: 'no such folder' } });
    const [failed] = await exchange(JSON.stringify({ id: 2, method: 'openPair', params: { instruct: '/a', thinking: '/b' } }));
    expect(failed).toEqual({ id: 2, ok: false, error: { code: 'engine-error', message: 'disk on fire' } });
  });

  it('refuses an invalid result from its own handler with engine-error', async () => {
    const { exchange } = hostHarness(sampleHandlers({ ping: () => Promise.resolve({ protocolVersion: 2, now: 0 } as never) }));
    const [reply] = await exchange(ping(3));
    expect(reply).toMatchObject({ id: 3, ok: false, error: { code: 'engine-error' } });
    expect(errorOf(reply)?.message).toContain('ping produced an invalid result');
  });

  it('sends validated events to the connection, and refuses invalid ones', async () => {
    const { exchange } = hostHarness(
      sampleHandlers({
        analyze: async (_params, ctx) => {
          ctx.emit('progress', { requestId: ctx.requestId, stage: 'gates', fraction: 0.5, etaSeconds: null });
          ctx.emit('progress', { requestId: ctx.requestId, stage: 'gates', fraction: 2, etaSeconds: null });
          throw new Error('unreachable');
        },
      }),
    );
    const replies = await exchange(JSON.stringify({ id: 4, method: 'analyze', params: { projectDir: '/p', settings: SAMPLE_PARAMS.analyze.settings } }));
    expect(replies[0]).toEqual({ event: 'progress', payload: { requestId: 4, stage: 'gates', fraction: 0.5, etaSeconds: null } });
    expect(replies[1]).toMatchObject({ id: 4, ok: false, error: { code: 'engine-error' } });
    expect(errorOf(replies[1])?.message).toContain('invalid progress event');
  });
});

describe('cancellation', () => {
  /** A handler that runs until its signal aborts, recording what it saw. */
  function waitingHandlers(seen: { signal?: AbortSignal }) {
    return sampleHandlers({
      verify: (_params, ctx) =>
        new Promise((_resolve, reject) => {
          seen.signal = ctx.signal;
          ctx.signal.addEventListener('abort', () => reject(new Error('stopped')));
        }),
    });
  }
  const verify = (id: number) => JSON.stringify({ id, method: 'verify', params: { method: { method: 'slerp', t: 0.5 } } });

  it('cancel {requestId} aborts the handler signal and the request ends as cancelled', async () => {
    const seen: { signal?: AbortSignal } = {};
    const { host, sent, exchange } = hostHarness(waitingHandlers(seen));
    host.receive(verify(10));
    await flush();
    expect(seen.signal?.aborted).toBe(false);
    await exchange(JSON.stringify({ id: 11, method: 'cancel', params: { requestId: 10 } }));
    expect(seen.signal?.aborted).toBe(true);
    expect(sent).toContainEqual({ id: 11, ok: true, result: { cancelled: true } });
    expect(sent).toContainEqual({ id: 10, ok: false, error: { code: 'cancelled', message: 'request 10 was cancelled' } });
    await expectStillServing(exchange);
  });

  it('cancel of an unknown or finished request answers cancelled: false', async () => {
    const { exchange } = hostHarness();
    const [reply] = await exchange(JSON.stringify({ id: 12, method: 'cancel', params: { requestId: 404 } }));
    expect(reply).toEqual({ id: 12, ok: true, result: { cancelled: false } });
  });

  it('closing the connection aborts what is in flight and sends nothing more', async () => {
    const seen: { signal?: AbortSignal } = {};
    const { host, sent } = hostHarness(waitingHandlers(seen));
    host.receive(verify(13));
    await flush();
    host.close();
    await flush();
    expect(seen.signal?.aborted).toBe(true);
    expect(sent).toEqual([]);
    host.receive(ping(14));
    await flush();
    expect(sent).toEqual([]);
  });
});
