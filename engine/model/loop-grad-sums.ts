/**
 * Per-pass gradient parts and their sums. A looped model (loop-config.ts) uses every weight once
 * per pass, so the layer-wise backward (layer-grads.ts lossAndPassGrads) reports each weight's
 * gradient as one part per (pass, layer, tensor); the weight's gradient is the sum over passes.
 *
 * sumOverPasses turns a per-part callback into the per-layer one of lossAndLayerGrads: it keeps
 * a layer's parts until all `passes` of them are in, then hands on their sum. The backward walks
 * the last pass first, so for a looped model it holds (passes − 1) passes of layer gradients at
 * once (a Nanbeige4.2-3B-sized model: every decoder weight's gradient, in JS memory); a model
 * without a loop passes each part straight through, holding nothing.
 */
import type { LayerGradsCallback } from './layer-grads.ts';

/** One (pass, layer) part: full checkpoint tensor name → that pass's gradient (checkpoint layout). */
export type PassGradsCallback = (pass: number, layer: number, grads: Map<string, Float32Array>) => void | Promise<void>;

export function sumOverPasses(passes: number, onLayer: LayerGradsCallback): PassGradsCallback {
  const pending = new Map<number, Map<string, Float32Array>[]>();
  return async (_pass, layer, grads) => {
    if (passes === 1) return onLayer(layer, grads);
    const parts = [...(pending.get(layer) ?? []), grads];
    if (parts.length < passes) {
      pending.set(layer, parts);
      return;
    }
    pending.delete(layer);
    await onLayer(layer, sumParts(parts));
  };
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
