/** Test harnesses: a host with its output decoded, and a client and host wired back to back. */
import { EngineClient } from '../client.ts';
import { decodeMessage, type WireData } from '../frame.ts';
import type { HandledMethod, Handlers } from '../handlers.ts';
import { EngineHost, type EngineHostOptions } from '../host.ts';
import { REQUESTS } from '../methods.ts';
import { SAMPLE_RESULTS } from './samples.ts';

/** Every handler answers its sample result; `overrides` replace some. */
export function sampleHandlers(overrides: Partial<Handlers> = {}): Handlers {
  const methods = Object.keys(REQUESTS).filter((m): m is HandledMethod => m !== 'cancel');
  const base = Object.fromEntries(methods.map((m) => [m, () => Promise.resolve(SAMPLE_RESULTS[m])])) as unknown as Handlers;
  return { ...base, ...overrides };
}

/** Lets handler promises and queued deliveries settle. */
export const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

export function hostHarness(handlers: Handlers = sampleHandlers(), options: EngineHostOptions = {}) {
  const sent: unknown[] = [];
  const host = new EngineHost(handlers, (data) => sent.push(decodeMessage(data)), options);
  /** Sends one message and returns what the host answered to it. */
  const exchange = async (data: WireData) => {
    const before = sent.length;
    host.receive(data);
    await flush();
    return sent.slice(before);
  };
  return { host, sent, exchange };
}

/** Messages cross as encoded bytes, one task later, as over a real transport. */
export function connectInMemory(handlers: Handlers = sampleHandlers(), options: EngineHostOptions = {}) {
  const client = new EngineClient((data) => setTimeout(() => host.receive(data), 0));
  const host = new EngineHost(handlers, (data) => setTimeout(() => client.receive(data), 0), options);
  return { client, host };
}
