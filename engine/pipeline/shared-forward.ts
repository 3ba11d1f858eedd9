/**
 * Forward passes over the Instruct model that serve several measurements at once (the
 * projectors stage's format captures, AIM importance and router statistics): every layer is
 * read from disk, widened and uploaded once per pass for all of them, instead of once per
 * measurement — and, with two lanes, each pass's sequences split between this thread and a
 * worker thread (forward-lane.ts) that run the layers side by side.
 *
 *   await runSharedForward(model, [measurementA.requests, measurementB.requests, …], { batch, lane?, onProgress?, onLayerFinal? })
 *
 * A request is a sequence and what to read of it (forward-requests.ts). Requests with the same
 * token ids share one forward (a format chat is both a GSP sequence and a router-statistics
 * sequence) as long as each measurement still meets its sequences in its own order; the shared
 * sequences go through the model `batch` at a time. A sequence's layer outputs do not depend on
 * which other sequences share its pass nor on the thread that computes them (same backend, same
 * memory plan), and each layer's readings are delivered in sequence order — this thread's part of
 * the batch, then the lane's (layer-deliveries.ts) — so every accumulator sums in the same order as
 * in a pass of its own: the results are bit-identical to separate passes, with one lane or two.
 * Neither lane waits for the other's copy of a layer (nor this thread for the lane's start,
 * ForwardLane.launch): only the deliveries keep that order, so this thread runs ahead while the
 * lane starts.
 * `onLayerFinal(layer)` says when a layer's readings are all in (its last batch and loop pass), so
 * a caller can finish that layer's work (the projectors stage's eigen-solves) while later layers run.
 */
import type { CausalLM } from '../model/causal-lm.ts';
import { allTaps, forwardTapped, type Delivery, type TappedSequence } from '../model/tapped-forward.ts';
import { embedSequences } from '../model/embedding-rows.ts';
import { passCount } from '../model/loop-config.ts';
import type { ForwardLane, LaneRun } from './forward-lane.ts';
import type { LaneSequence } from './forward-lane-protocol.ts';
import { tapOf, type ForwardRequest } from './forward-requests.ts';
import { LayerDeliveries } from './layer-deliveries.ts';

/** What a measurement reads (its requests) and what it made of them, after the pass. */
export interface ForwardMeasurement<R> {
  readonly requests: readonly ForwardRequest[];
  result(): R;
}

export interface SharedForwardOptions {
  /** Sequences per forward pass (each pass reads every layer once per lane). */
  readonly batch: number;
  /** A worker thread that takes part of each pass (default: this thread alone); the caller launches and closes it. */
  readonly lane?: ForwardLane;
  /** Called after each layer of each pass with the fraction done. */
  readonly onProgress?: (fraction: number, text: string) => void;
  /** Names the passes in progress texts ("LABEL pass i/n, layer l"); default "model". */
  readonly label?: string;
  /** Called once per layer, after its last reading (last batch, last loop pass) was delivered. */
  readonly onLayerFinal?: (layer: number) => void;
}

/** One forward: the sequence and every request it serves, in request order. */
interface SharedSequence {
  readonly ids: readonly number[];
  readonly requests: ForwardRequest[];
}

export async function runSharedForward(model: CausalLM, measurements: readonly (readonly ForwardRequest[])[], options: SharedForwardOptions): Promise<void> {
  // A zero or fractional batch would make the pass count infinite or skip sequences.
  if (!(Number.isInteger(options.batch) && options.batch >= 1)) throw new RangeError(`batch ${options.batch} must be a whole number ≥ 1`);
  const sequences = shareSequences(measurements);
  const passes = Math.ceil(sequences.length / options.batch);
  const { numLayers } = model.spec;
  const lastLoopPass = passCount(model.spec) - 1;
  const lane = Math.min(options.batch, sequences.length) >= 2 ? options.lane : undefined;
  for (let pass = 0; pass < passes; pass++) {
    const batch = sequences.slice(pass * options.batch, (pass + 1) * options.batch);
    const cut = lane === undefined ? batch.length : balancedCut(batch);
    const own = batch.slice(0, cut);
    const theirs = batch.slice(cut);
    const remote: LaneRun | undefined = lane === undefined || theirs.length === 0 ? undefined : lane.run(await laneSequences(model, theirs));
    const deliveries = new LayerDeliveries();
    const owed: Delivery[] = [];
    await forwardTapped(model.context, own.map((s) => tapped(s, owed)), {
      onLayerDone: (layer, loopPass) => {
        deliveries.throwIfFailed();
        const laneDeliveries = remote === undefined ? undefined : async () =>
          (await remote.layer(layer, loopPass)).map(({ sequence, request, record }) => () => (theirs[sequence] as SharedSequence).requests[request]?.deliver(record));
        deliveries.add(owed.splice(0), laneDeliveries, () => {
          options.onProgress?.((pass + (layer + 1) / numLayers) / passes, `${options.label ?? 'model'} pass ${pass + 1}/${passes}, layer ${layer}`);
          if (pass === passes - 1 && loopPass === lastLoopPass) options.onLayerFinal?.(layer);
        });
      },
    });
    await deliveries.drain();
    await remote?.done();
  }
}

async function laneSequences(model: CausalLM, sequences: readonly SharedSequence[]): Promise<LaneSequence[]> {
  const embedded = await embedSequences(model.context, sequences.map((s) => s.ids));
  return sequences.map((s, i) => ({ ids: s.ids, reads: s.requests.map((r) => r.read), embedded: embedded[i] as Float32Array }));
}

/** The sequence's taps, each reading queued on `owed` (delivered later, in order, by LayerDeliveries). */
function tapped(s: SharedSequence, owed: Delivery[]): TappedSequence {
  return { ids: s.ids, tap: allTaps(s.requests.map((r) => tapOf(s.ids, r.read, (record) => void owed.push(() => r.deliver(record))))) };
}

/** Where to split a batch (this thread takes the first part): equal tokens on each side, at least one sequence here. */
function balancedCut(batch: readonly SharedSequence[]): number {
  const total = batch.reduce((n, s) => n + s.ids.length, 0);
  let best = 1;
  let bestGap = Infinity;
  let before = 0;
  batch.forEach((s, i) => {
    before += s.ids.length;
    const gap = Math.abs(2 * before - total);
    if (gap < bestGap) [best, bestGap] = [i + 1, gap];
  });
  return best;
}

/**
 * The distinct sequences to run, in order. A request joins an earlier sequence with its ids only
 * if that sequence comes after the measurement's previous one: each measurement's sequences stay
 * in its request order across passes (the order its sums run in).
 */
function shareSequences(measurements: readonly (readonly ForwardRequest[])[]): SharedSequence[] {
  const sequences: SharedSequence[] = [];
  const byIds = new Map<string, number[]>();
  for (const requests of measurements) {
    let previous = -1;
    for (const request of requests) {
      const key = request.ids.join(',');
      const same = byIds.get(key) ?? [];
      let index = same.find((i) => i > previous);
      if (index === undefined) {
        index = sequences.length;
        sequences.push({ ids: request.ids, requests: [] });
        byIds.set(key, [...same, index]);
      }
      sequences[index]?.requests.push(request);
      previous = index;
    }
  }
  return sequences;
}
