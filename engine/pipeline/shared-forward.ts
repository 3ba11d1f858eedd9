/**
 * Forward passes over the Instruct model that serve several measurements at once (the
 * projectors stage's format captures, AIM importance and router statistics): every layer is
 * read from disk, widened and uploaded once per pass for all of them, instead of once per
 * measurement.
 *
 *   await runSharedForward(model, [measurementA.requests, measurementB.requests, …], { batch, onProgress })
 *
 * A request is a sequence and the tap that reads it (model/tapped-forward.ts). Requests with the
 * same token ids share one forward (a format chat is both a GSP sequence and a router-statistics
 * sequence) as long as each measurement still meets its sequences in its own order; the shared
 * sequences go through the model `batch` at a time. A sequence's layer outputs do not depend on
 * which other sequences share its pass, and each measurement gets its deliveries per layer in
 * its request order, so every accumulator sums in the same order as in a pass of its own: the
 * results are bit-identical to separate passes.
 */
import type { CausalLM } from '../model/causal-lm.ts';
import { bothTaps, forwardTapped, type LayerTap, type TappedSequence } from '../model/tapped-forward.ts';

export interface ForwardRequest {
  readonly ids: readonly number[];
  readonly tap: LayerTap;
}

/** What a measurement reads (its requests) and what it made of them, after the pass. */
export interface ForwardMeasurement<R> {
  readonly requests: readonly ForwardRequest[];
  result(): R;
}

export interface SharedForwardOptions {
  /** Sequences per forward pass (each pass reads every layer once). */
  readonly batch: number;
  /** Called after each layer of each pass with the fraction done. */
  readonly onProgress?: (fraction: number, text: string) => void;
  /** Names the passes in progress texts ("LABEL pass i/n, layer l"); default "model". */
  readonly label?: string;
}

export async function runSharedForward(model: CausalLM, measurements: readonly (readonly ForwardRequest[])[], options: SharedForwardOptions): Promise<void> {
  // A zero or fractional batch would make the pass count infinite or skip sequences.
  if (!(Number.isInteger(options.batch) && options.batch >= 1)) throw new RangeError(`batch ${options.batch} must be a whole number ≥ 1`);
  const sequences = shareSequences(measurements);
  const passes = Math.ceil(sequences.length / options.batch);
  const { numLayers } = model.spec;
  for (let pass = 0; pass < passes; pass++) {
    await forwardTapped(model.context, sequences.slice(pass * options.batch, (pass + 1) * options.batch), {
      onLayerDone: (layer) => options.onProgress?.((pass + (layer + 1) / numLayers) / passes, `${options.label ?? 'model'} pass ${pass + 1}/${passes}, layer ${layer}`),
    });
  }
}

/**
 * The distinct sequences to run, in order. A request joins an earlier sequence with its ids only
 * if that sequence comes after the measurement's previous one: each measurement's sequences stay
 * in its request order across passes (the order its sums run in).
 */
function shareSequences(measurements: readonly (readonly ForwardRequest[])[]): TappedSequence[] {
  const sequences: TappedSequence[] = [];
  const byIds = new Map<string, number[]>();
  for (const requests of measurements) {
    let previous = -1;
    for (const { ids, tap } of requests) {
      const key = ids.join(',');
      const same = byIds.get(key) ?? [];
      let index = same.find((i) => i > previous);
      if (index === undefined) {
        index = sequences.length;
        sequences.push({ ids, tap });
        byIds.set(key, [...same, index]);
      } else {
        const shared = sequences[index] as TappedSequence;
        sequences[index] = { ids: shared.ids, tap: bothTaps(shared.tap, tap) };
      }
      previous = index;
    }
  }
  return sequences;
}
