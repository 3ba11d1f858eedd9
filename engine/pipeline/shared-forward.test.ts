/**
 * runSharedForward on the committed tiny Qwen3-MoE checkpoint: the projectors stage's three
 * measurements (format captures, AIM importance, router statistics) in one shared pass against
 * a pass each — bit-identical results, each layer read once instead of three times, also with
 * a worker lane computing part of the pass — the order rule that keeps each measurement's
 * sequences in its own order, and onLayerFinal coming after a layer's last reading.
 */
import { describe, expect, it } from 'vitest';
import type { RouterStats } from '../analysis/router-stats.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { moeGolden, useMoeCheckpoint } from '../model/testing/moe-golden.ts';
import type { WeightSource } from '../model/weights.ts';
import { aimImportanceMeasurement, aimPrompts } from './aim-importance.ts';
import type { CalibrationSequence } from './calibration-sequences.ts';
import { ForwardLane } from './forward-lane.ts';
import { routerStatsMeasurement } from './router-stats-measure.ts';
import { activationRequest, type ForwardRequest } from './forward-requests.ts';
import { runSharedForward, type ForwardMeasurement } from './shared-forward.ts';

const openCheckpoint = useMoeCheckpoint();
const COUNTED = 'model.layers.0.input_layernorm.weight';

/** The checkpoint, counting how often layer 0 is read (once per pass). */
function countingSource(): { source: WeightSource; reads: () => number } {
  const base = openCheckpoint();
  let reads = 0;
  const source: WeightSource = {
    dir: base.dir,
    config: base.config,
    tensors: base.tensors,
    tensor: (name) => base.tensor(name),
    readFloat32: (name) => {
      if (name === COUNTED) reads++;
      return base.readFloat32(name);
    },
  };
  return { source, reads: () => reads };
}

function calibration(): CalibrationSequence[] {
  const [a, b] = moeGolden.sequences as [number[], number[]];
  const half = (ids: number[]) => ids.map((_, t) => (t >= ids.length / 2 ? 1 : 0));
  return [
    { set: 'reasoning', split: 'train', source: 'r:1', ids: a, lossMask: half(a) },
    { set: 'agent', split: 'train', source: 'a:1', ids: b, lossMask: half(b) },
    { set: 'format', split: 'train', source: 'f:1', ids: b, formatPositions: [0, b.length - 1] },
  ];
}

/** The format chats' captured rows, per layer, key and sequence in arrival order. */
function formatMeasurement(sequences: readonly CalibrationSequence[]): ForwardMeasurement<string[]> {
  const rows: string[] = [];
  const requests = sequences
    .filter((s) => s.set === 'format')
    .map((s, i) => activationRequest(s.ids, s.formatPositions ?? [], i, (a) => void rows.push(`${a.layer}/${a.sequence}:${a.attnInput.join()}|${a.ffnInput.join()}`)));
  return { requests, result: () => rows };
}

/** Runs `work` with a forward lane on the checkpoint (closed after) when asked, else without. */
async function withLane(launch: boolean, work: (lane: { lane?: ForwardLane }) => Promise<void>): Promise<void> {
  const lane = launch ? ForwardLane.launch(openCheckpoint().dir) : undefined;
  try {
    await work(lane === undefined ? {} : { lane });
  } finally {
    await lane?.close();
  }
}

interface Measured {
  readonly rows: string[];
  readonly importance: Map<string, Float64Array>;
  readonly router: RouterStats;
}

async function measure(shared: boolean, lanes: 1 | 2 = 1): Promise<{ measured: Measured; reads: number }> {
  const { source, reads } = countingSource();
  const model = loadCausalLM(source);
  const sequences = calibration();
  const format = formatMeasurement(sequences);
  const aim = aimImportanceMeasurement(aimPrompts(sequences));
  const router = routerStatsMeasurement(model.spec, sequences);
  if (router === undefined) throw new Error('the MoE checkpoint has no router');
  const all = [router.requests, format.requests, aim.requests];
  if (shared) await withLane(lanes === 2, (lane) => runSharedForward(model, all, { batch: 8, ...lane }));
  else for (const requests of all) await runSharedForward(model, [requests], { batch: 1 });
  return { measured: { rows: format.result(), importance: aim.result(), router: router.result() }, reads: reads() };
}

describe('runSharedForward', () => {
  it('serves format captures, AIM importance and router statistics in one pass, bit-identical to a pass each', async () => {
    const separate = await measure(false);
    const shared = await measure(true);
    // Separate: 3 router sequences + 1 format + 2 prompts, one a pass. Shared: the format chat
    // is also the agent chat's ids (one forward), all in one batch.
    expect(separate.reads).toBe(6);
    expect(shared.reads).toBe(1);
    expect(shared.measured.rows).toEqual(separate.measured.rows);
    expect(shared.measured.rows.length).toBe(openCheckpoint().config.num_hidden_layers);
    expect([...shared.measured.importance.keys()]).toEqual([...separate.measured.importance.keys()]);
    for (const [module, values] of separate.measured.importance) expect(shared.measured.importance.get(module)).toEqual(values);
    expect(JSON.stringify(shared.measured.router)).toBe(JSON.stringify(separate.measured.router));
  });

  it('gives the same bits with a worker lane taking part of the pass', async () => {
    const one = await measure(true);
    const two = await measure(true, 2);
    // The lane reads with its own checkpoint handle: this thread read layer 0 once, for its part.
    expect(two.reads).toBe(1);
    expect(two.measured.rows).toEqual(one.measured.rows);
    for (const [module, values] of one.measured.importance) expect(two.measured.importance.get(module)).toEqual(values);
    expect(JSON.stringify(two.measured.router)).toBe(JSON.stringify(one.measured.router));
  });

  it('calls onLayerFinal once per layer, after every reading of it, with a lane and several passes', async () => {
    const model = loadCausalLM(openCheckpoint());
    const [a, b] = moeGolden.sequences as [number[], number[]];
    const events: string[] = [];
    const requests = [a, b, a, b, a].map((ids, i) => activationRequest(ids, [0], i, (x) => void events.push(`read ${x.layer}/${i}`)));
    // Batch 3: the first pass split between this thread and the lane, the second of 2 sequences.
    await withLane(true, (lane) => runSharedForward(model, [requests], { batch: 3, ...lane, onLayerFinal: (layer) => void events.push(`final ${layer}`) }));
    const layers = Array.from({ length: model.spec.numLayers }, (_, l) => l);
    expect(events.filter((e) => e.startsWith('final'))).toEqual(layers.map((l) => `final ${l}`));
    for (const layer of layers) {
      const reads = events.flatMap((e, at) => (e.startsWith(`read ${layer}/`) ? [at] : []));
      expect(reads.map((at) => events[at])).toEqual([0, 1, 2, 3, 4].map((i) => `read ${layer}/${i}`));
      expect(Math.max(...reads)).toBeLessThan(events.indexOf(`final ${layer}`));
    }
  });

  it('runs a sequence again rather than deliver a measurement\'s sequences out of its order', async () => {
    const { source, reads } = countingSource();
    const model = loadCausalLM(source);
    const [a, b] = moeGolden.sequences as [number[], number[]];
    const seen: Record<'first' | 'second', string[]> = { first: [], second: [] };
    const requests = (who: 'first' | 'second', order: number[][]): ForwardRequest[] =>
      order.map((ids, i) => activationRequest(ids, [0], i, (x) => void seen[who].push(`${x.layer}:${ids === a ? 'a' : 'b'}`)));
    // One sequence a pass: b is shared (second meets it first), a must run again after it.
    await runSharedForward(model, [requests('first', [a, b]), requests('second', [b, a])], { batch: 1 });
    expect(reads()).toBe(3);
    const layers = Array.from({ length: model.spec.numLayers }, (_, l) => l);
    expect(seen.first.filter((s) => s.startsWith('0:'))).toEqual(['0:a', '0:b']);
    expect(seen.second.filter((s) => s.startsWith('0:'))).toEqual(['0:b', '0:a']);
    expect(seen.second).toHaveLength(2 * layers.length);
  });

  it('refuses a batch that is not a whole number ≥ 1', async () => {
    const model = loadCausalLM(openCheckpoint());
    await expect(runSharedForward(model, [], { batch: 0 })).rejects.toThrow(/batch 0 must be a whole number/);
    await expect(runSharedForward(model, [], { batch: 1.5 })).rejects.toThrow(/batch 1.5/);
  });
});
