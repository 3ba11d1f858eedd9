import { describe, expect, it } from 'vitest';
import { engineMessageSchema, requestEnvelopeSchema } from './envelope.ts';
import { decodeMessage, encodeMessage } from './frame.ts';
import { EVENTS, REQUESTS, type EventName, type RequestName } from './methods.ts';
import { SAMPLE_EVENTS, SAMPLE_PARAMS, SAMPLE_RESULTS } from './testing/samples.ts';

/** encode → wire → decode → envelope schema → method schema, as the real ends do it. */
function roundTrip(message: unknown): unknown {
  return decodeMessage(encodeMessage(message));
}

describe('every message type round-trips through encode, validate and decode', () => {
  const methods = Object.keys(REQUESTS) as RequestName[];
  const events = Object.keys(EVENTS) as EventName[];

  it.each(methods)('request and response of %s', (method) => {
    const request = requestEnvelopeSchema.parse(roundTrip({ id: 3, method, params: SAMPLE_PARAMS[method] }));
    expect(REQUESTS[method].params.parse(request.params)).toEqual(SAMPLE_PARAMS[method]);

    const response = engineMessageSchema.parse(roundTrip({ id: 3, ok: true, result: SAMPLE_RESULTS[method] }));
    if (!('ok' in response) || !response.ok) throw new Error('expected a success response');
    expect(REQUESTS[method].result.parse(response.result)).toEqual(SAMPLE_RESULTS[method]);
  });

  it.each(events)('event %s', (event) => {
    const message = engineMessageSchema.parse(roundTrip({ event, payload: SAMPLE_EVENTS[event] }));
    if (!('event' in message)) throw new Error('expected an event');
    expect(EVENTS[event].parse(message.payload)).toEqual(SAMPLE_EVENTS[event]);
  });

  it('error responses', () => {
    const message = engineMessageSchema.parse(roundTrip({ id: 9, ok: false, error: { code: 'not-found', message: 'no such folder' } }));
    expect(message).toEqual({ id: 9, ok: false, error: { code: 'not-found', message: 'no such folder' } });
  });
});

describe('schemas refuse what the contract does not allow', () => {
  it.each([
    ['unknown keys', 'openPair', { instruct: '/a', thinking: '/b', extra: 1 }],
    ['missing fields', 'openPair', { instruct: '/a' }],
    ['NUL in a path', 'inspectCheckpoint', { dir: '/a\0b' }],
    ['a negative layer', 'spectrum', { layer: -1, key: 'attn_input', tau: 0.03, steepness: 1 }],
    ['an unknown merge method', 'verify', { method: { method: 'magic' } }],
    ['a non-finite α', 'preview', { settings: { ...SAMPLE_PARAMS.preview.settings, alpha: Infinity }, alphas: [] }],
    ['shards under 1 MiB', 'export', { ...SAMPLE_PARAMS.export, shardBytes: 1000 }],
  ] as const)('%s', (_what, method, params) => {
    expect(REQUESTS[method].params.safeParse(params).success).toBe(false);
  });

  it('a matrix whose values do not fill rows × cols', () => {
    const metrics = { ...SAMPLE_RESULTS.getGateMetrics, gate: { rows: 2, cols: 3, values: new Float32Array(5) } };
    expect(REQUESTS.getGateMetrics.result.safeParse(metrics).success).toBe(false);
  });

  it.each(['delta', 'verify'])('an analysis summary or stage state naming %s, which has no analysis cache', (stage) => {
    const summary = { ...SAMPLE_RESULTS.analyze, stages: [{ stage, cached: true, seconds: 0 }] };
    expect(REQUESTS.analyze.result.safeParse(summary).success).toBe(false);
    const state = { ...SAMPLE_RESULTS.openProject, stages: [{ stage, state: 'cached' }] };
    expect(REQUESTS.openProject.result.safeParse(state).success).toBe(false);
  });

  it('a block\'s per-pass contributions that miss a pass or come out of order', () => {
    const sample = SAMPLE_RESULTS.getBlockPasses;
    const tensor = sample?.tensors[0];
    if (sample === null || sample === undefined || tensor === undefined) throw new Error('the sample has a tensor');
    const missing = { ...sample, tensors: [{ ...tensor, passes: tensor.passes.slice(0, 1) }] };
    const swapped = { ...sample, tensors: [{ ...tensor, passes: [...tensor.passes].reverse() }] };
    expect(REQUESTS.getBlockPasses.result.safeParse(missing).success).toBe(false);
    expect(REQUESTS.getBlockPasses.result.safeParse(swapped).success).toBe(false);
    expect(REQUESTS.getBlockPasses.result.safeParse(sample).success).toBe(true);
  });

  it('bulk arrays as plain numbers instead of Float32Array', () => {
    const spectrum = { ...SAMPLE_RESULTS.spectrum, sigmaRatio: [1, 0.1, 0.001] };
    expect(REQUESTS.spectrum.result.safeParse(spectrum).success).toBe(false);
  });
});
