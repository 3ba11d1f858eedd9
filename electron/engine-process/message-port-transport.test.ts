import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeMessage } from '../../engine/protocol/frame.ts';
import type { EngineClient } from '../../engine/protocol/client.ts';
import { ProtocolError } from '../../engine/protocol/errors.ts';
import { connectMessagePort, postEncoded, toWireData } from '../../engine/protocol/message-port-transport.ts';
import { sampleHandlers } from '../../engine/protocol/testing/in-memory.ts';
import { SAMPLE_EVENTS, SAMPLE_PARAMS, SAMPLE_RESULTS } from '../../engine/protocol/testing/samples.ts';
import { REQUESTS, type RequestName } from '../../engine/protocol/methods.ts';
import { serveEnginePort } from './engine-port-host.ts';
import { asPortLike, nodeChannel, nodePortEndpoint, until } from '../testing/node-ports.ts';

const open: Array<() => void> = [];
afterEach(() => open.splice(0).forEach((close) => close()));

function connect(handlers = sampleHandlers(), maxMessageBytes?: number) {
  const channel = nodeChannel();
  open.push(channel.close);
  const host = serveEnginePort(nodePortEndpoint(channel.enginePort), handlers, maxMessageBytes === undefined ? {} : { maxMessageBytes });
  const client = connectMessagePort(asPortLike(channel.uiPort));
  return { client, host, channel };
}

const errorsOf = (client: EngineClient) => {
  const errors: string[] = [];
  client.on('error', ({ code }) => errors.push(code));
  return errors;
};

describe('MessagePort transport', () => {
  it('round-trips every request with its sample result, Float32Array fields included', async () => {
    const { client } = connect();
    for (const method of Object.keys(REQUESTS).filter((m): m is Exclude<RequestName, 'cancel'> => m !== 'cancel')) {
      // Each call is typed by its method; the loop widens it, so the sample is passed as is.
      const result = await (client.call as (m: string, p: unknown) => Promise<unknown>)(method, SAMPLE_PARAMS[method]);
      expect(result, method).toEqual(SAMPLE_RESULTS[method]);
    }
    const spectrum = await client.call('spectrum', SAMPLE_PARAMS.spectrum);
    expect(spectrum.sigmaRatio).toBeInstanceOf(Float32Array);
  });

  it('delivers push events, binary-free and with the request id', async () => {
    const { client, host } = connect();
    const progress = vi.fn();
    client.on('progress', progress);
    host.emit('progress', SAMPLE_EVENTS.progress);
    await until(() => progress.mock.calls.length === 1);
    expect(progress).toHaveBeenCalledWith(SAMPLE_EVENTS.progress);
  });

  it('transfers frame buffers instead of copying them', () => {
    const frame = encodeMessage({ values: new Float32Array([1, 2, 3]) });
    expect(typeof frame).not.toBe('string');
    const postMessage = vi.fn();
    postEncoded({ postMessage }, frame);
    const [, transfer] = postMessage.mock.calls[0] as [unknown, ArrayBuffer[]];
    expect(transfer).toEqual([(frame as Uint8Array<ArrayBuffer>).buffer]);
    postEncoded({ postMessage }, 'text');
    expect(postMessage).toHaveBeenLastCalledWith('text', []);
  });

  it('detaches the sent buffer over a real channel, and the engine reads the frame', async () => {
    const { channel } = connect();
    const frame = encodeMessage({ id: 1, method: 'ping', params: {} });
    // A text message here; a frame for a binary payload is checked through the unknown-method path.
    const binary = encodeMessage({ id: 2, method: 'nope', params: { v: new Float32Array(4) } }) as Uint8Array<ArrayBuffer>;
    const replies: unknown[] = [];
    channel.uiPort.on('message', (data) => replies.push(data));
    postEncoded(asPortLike(channel.uiPort), frame);
    postEncoded(asPortLike(channel.uiPort), binary);
    expect(binary.buffer.byteLength).toBe(0);
    await until(() => replies.length === 2);
    expect(JSON.stringify(replies)).toContain('unknown-method');
  });

  it('normalises what a port may deliver', () => {
    expect(toWireData('{}')).toBe('{}');
    const bytes = new Uint8Array([1, 2, 3, 4]);
    expect([...(toWireData(bytes.buffer) as Uint8Array)]).toEqual([1, 2, 3, 4]);
    expect([...(toWireData(new DataView(bytes.buffer, 1, 2)) as Uint8Array)]).toEqual([2, 3]);
    expect(toWireData({ id: 1 })).toBeUndefined();
    expect(toWireData(42)).toBeUndefined();
  });

  it('survives malformed messages: each is answered or reported, and the engine keeps serving', async () => {
    const { client, channel } = connect();
    const replies: string[] = [];
    channel.uiPort.on('message', (data: unknown) => replies.push(typeof data === 'string' ? data : 'binary'));
    const junk: unknown[] = [
      'not json',
      '{"id": 1}',
      '{"id": 2, "method": "toString", "params": {}}',
      '{"id": 3, "method": "spectrum", "params": {"layer": -1}}',
      new Uint8Array([0x43, 0x52, 0x46, 0x31, 255, 255, 255, 255, 0, 0, 0, 0]),
      new Uint8Array(3),
      { id: 4, method: 'ping', params: {} },
      null,
      12,
    ];
    for (const message of junk) channel.uiPort.postMessage(message);
    await until(() => replies.length === junk.length);
    expect(replies.join('\n')).toMatch(/bad-request[\s\S]*unknown-method[\s\S]*invalid-params/);
    expect(await client.call('ping', {})).toMatchObject({ protocolVersion: 1 });
  });

  it('answers oversized messages with too-large and stays up', async () => {
    const { client } = connect(sampleHandlers(), 64);
    const errors = errorsOf(client);
    const big = await client.call('openPair', { instruct: `/${'a'.repeat(100)}`, thinking: '/b' }).catch((e: ProtocolError) => e.code);
    expect(big).toBe('too-large');
    expect(errors).toEqual([]);
    expect(await client.call('ping', {})).toMatchObject({ protocolVersion: 1 });
  });

  it('reports engine messages that are not wire data as error events', async () => {
    const { client, channel } = connect();
    const errors = errorsOf(client);
    channel.enginePort.postMessage({ not: 'wire data' });
    await until(() => errors.length === 1);
    expect(errors).toEqual(['bad-response']);
  });

  it('closing the client rejects pending calls and closes the port; closing the port cancels engine work', async () => {
    let aborted = false;
    const slow = sampleHandlers({
      analyze: (_params, { signal }) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(signal.reason as Error);
          }),
        ),
    });
    const { client } = connect(slow);
    const pending = client.call('analyze', SAMPLE_PARAMS.analyze).catch((e: ProtocolError) => e.code);
    await new Promise((resolve) => setTimeout(resolve, 20));
    client.close(new ProtocolError('disconnected', 'the engine process stopped'));
    expect(await pending).toBe('disconnected');
    await until(() => aborted);
  });
});
