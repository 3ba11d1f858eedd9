/**
 * Per-pass gradient parts and their sums. A looped model (loop-config.ts) uses every weight once
 * per pass, so the layer-wise backward (layer-grads.ts lossAndPassGrads) reports each weight's
 * gradient as one part per (pass, layer, tensor); the weight's gradient is the sum over passes.
 *
 * sumOverPasses turns a per-part callback into the per-layer one of lossAndLayerGrads: it keeps
 * a layer's parts until all `passes` of them are in, then hands on their sum. The backward walks
 * the last pass first, so for a looped model (passes − 1) passes of layer gradients wait at once
 * (a Nanbeige4.2-3B-sized model: every decoder weight's gradient, ~15.6 GB of float32): they wait
 * in a PassPartStash (loop-part-stash.ts), in memory up to the memory plan's passPartHoldBytes
 * and on disk past it. A model without a loop passes each part straight through, holding nothing.
 */
import type { LayerGradsCallback } from './layer-grads.ts';
import { PassPartStash, type PassPart } from './loop-part-stash.ts';
import { passPartHoldBytes } from './memory-plan.ts';

/**
 * One (pass, layer) part: full checkpoint tensor name → that pass's gradient (checkpoint layout).
 * `release`, when there is one, frees what the callback still keeps (lossAndPassGrads calls it
 * when the backward ends or fails).
 */
export type PassGradsCallback = ((pass: number, layer: number, grads: Map<string, Float32Array>) => void | Promise<void>) & {
  readonly release?: () => Promise<void>;
};

/** A per-part callback over a stash: `onComplete` gets each layer's parts once all `passes` of them are in. */
export function stashedParts(passes: number, onComplete: (layer: number, parts: PassPart[]) => void | Promise<void>, holdBytes = passPartHoldBytes()): PassGradsCallback {
  const stash = new PassPartStash(passes, holdBytes);
  const onPart = async (pass: number, layer: number, grads: Map<string, Float32Array>) => {
    const parts = await stash.add(pass, layer, grads);
    if (parts !== undefined) await onComplete(layer, parts);
  };
  return Object.assign(onPart, { release: () => stash.release() });
}

export function sumOverPasses(passes: number, onLayer: LayerGradsCallback, holdBytes?: number): PassGradsCallback {
  if (passes === 1) return (_pass, layer, grads) => onLayer(layer, grads);
  return stashedParts(passes, (layer, parts) => onLayer(layer, sumParts(parts.map((part) => part.grads))), holdBytes);
}

/** Tensor-wise sum of gradient maps (a tensor absent from a part contributes nothing there). */
export function sumParts(parts: readonly ReadonlyMap<string, Float32Array>[]): Map<string, Float32Array> {
  const sums = new Map<string, Float32Array>();
  for (const part of parts) {
    for (const [name, grad] of part) {
      const sum = sums.get(name);
      if (sum === undefined) sums.set(name, Float32Array.from(grad));
      else for (let i = 0; i < sum.length; i++) sum[i] = (sum[i] as number) + (grad[i] as number);
    }
  }
  return sums;
}
