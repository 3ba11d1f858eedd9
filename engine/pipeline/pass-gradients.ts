/**
 * Per-pass gradient parts beside the summed gradient, in the gradients stage's layer files.
 *
 *   keepPassParts(passes, onLayer) → PassGradsCallback for CausalLM.lossAndPassGrads
 *   splitPassParts(grads)          → { combined, passes } of one stored layer map
 *
 * A looped model (model/loop-config.ts) uses every decoder weight once per pass. CRANE's gate
 * scores the summed gradient (the method's definition); the per-pass analysis needs each pass's
 * part too. keepPassParts hands one map per layer to the stage's usual callback: the sum under
 * the tensor's own name — computed as lossAndLayerGrads computes it (model/loop-grad-sums.ts
 * sumParts, parts in arrival order), so the combined gate is bit-identical either way — and each
 * part under `pass{p}:name`. The store, the worker protocol and the batch fold stay name-blind,
 * and a layer's parts commit atomically with its sum. With one pass (every dense model) nothing
 * is added: the same maps, the same files. The parts that wait for their layer's pass 0 wait in a
 * stash that spills to disk past the memory plan's passPartHoldBytes (model/loop-part-stash.ts).
 */
import type { LayerGradsCallback } from '../model/layer-grads.ts';
import { stashedParts, sumParts, type PassGradsCallback } from '../model/loop-grad-sums.ts';

const PART_NAME = /^pass(\d+):(.+)$/;

export function passPartName(pass: number, name: string): string {
  return `pass${pass}:${name}`;
}

export function keepPassParts(passes: number, onLayer: LayerGradsCallback): PassGradsCallback {
  if (passes === 1) return (_pass, layer, grads) => onLayer(layer, grads);
  return stashedParts(passes, async (layer, parts) => {
    const out = sumParts(parts.map((part) => part.grads));
    for (const part of [...parts].sort((a, b) => a.pass - b.pass)) {
      for (const [name, grad] of part.grads) out.set(passPartName(part.pass, name), grad);
    }
    await onLayer(layer, out);
  });
}

/** T: the gradients, or anything else kept under the stored names (the gates stage splits the names alone). */
export interface SplitLayer<T = Float32Array> {
  /** Tensor name → gradient summed over the passes (the only entries of a model without a loop). */
  readonly combined: Map<string, T>;
  /** passes[p]: tensor name → pass p's part; empty for a model without a loop. */
  readonly passes: Map<string, T>[];
}

export function splitPassParts<T = Float32Array>(grads: ReadonlyMap<string, T>): SplitLayer<T> {
  const combined = new Map<string, T>();
  const passes: Map<string, T>[] = [];
  for (const [key, grad] of grads) {
    const part = PART_NAME.exec(key);
    if (part === null) {
      combined.set(key, grad);
      continue;
    }
    const pass = Number(part[1]);
    while (passes.length <= pass) passes.push(new Map());
    passes[pass]?.set(part[2] as string, grad);
  }
  return { combined, passes };
}
