/**
 * Names and layouts of Qwen3-MoE expert tensors. Two layouts exist in the wild:
 *
 *   per-expert  mlp.experts.{e}.{gate,up,down}_proj.weight   [I, H], [I, H], [H, I]
 *               (the released Qwen3-30B-A3B checkpoints, transformers ≤ 4.x)
 *   fused       mlp.experts.gate_up_proj [E, 2I, H] (gate rows first, then up), mlp.experts.down_proj [E, H, I]
 *               (transformers v5's Qwen3MoeExperts)
 *
 * The runtime always holds per-expert keys (moe-block.ts); weights.ts splits a fused layer into
 * them on reading and fuses the gradients back, so gradients carry the checkpoint's own names.
 * Any other tensor under mlp.experts. is refused by name.
 */
import { CheckpointError } from '../io/checkpoint-error.ts';
import type { MoeSpec } from './moe-config.ts';

export const ROUTER_KEY = 'mlp.gate.weight';
export const FUSED_GATE_UP_KEY = 'mlp.experts.gate_up_proj';
export const FUSED_DOWN_KEY = 'mlp.experts.down_proj';

export type ExpertProjection = 'gate_proj' | 'up_proj' | 'down_proj';
export const EXPERT_PROJECTIONS: readonly ExpertProjection[] = ['gate_proj', 'up_proj', 'down_proj'];
export type ExpertLayout = 'per-expert' | 'fused';

export function expertKey(expert: number, projection: ExpertProjection): string {
  return `mlp.experts.${expert}.${projection}.weight`;
}

/** Checkpoint shapes of the per-expert keys, [out, in]. */
export function perExpertShapes(moe: MoeSpec, hidden: number): Map<string, readonly number[]> {
  const inner = moe.expertIntermediateSize;
  const shapes = new Map<string, readonly number[]>();
  for (let e = 0; e < moe.numExperts; e++) {
    shapes.set(expertKey(e, 'gate_proj'), [inner, hidden]);
    shapes.set(expertKey(e, 'up_proj'), [inner, hidden]);
    shapes.set(expertKey(e, 'down_proj'), [hidden, inner]);
  }
  return shapes;
}

export function fusedShapes(moe: MoeSpec, hidden: number): Map<string, readonly number[]> {
  const { numExperts: e, expertIntermediateSize: inner } = moe;
  return new Map([[FUSED_GATE_UP_KEY, [e, 2 * inner, hidden]], [FUSED_DOWN_KEY, [e, hidden, inner]]]);
}

/**
 * Which layout layer `prefix` ("model.layers.{l}.") uses, from the checkpoint's tensor names.
 * A missing tensor is left for the reader to report; an unknown name under mlp.experts. fails here.
 */
export function detectExpertLayout(names: Iterable<string>, prefix: string, moe: MoeSpec, hidden: number, dir: string): ExpertLayout {
  const under = `${prefix}mlp.experts.`;
  const present = [...names].filter((n) => n.startsWith(under)).map((n) => n.slice(prefix.length));
  const layout: ExpertLayout = present.includes(FUSED_GATE_UP_KEY) || present.includes(FUSED_DOWN_KEY) ? 'fused' : 'per-expert';
  const known = layout === 'fused' ? fusedShapes(moe, hidden) : perExpertShapes(moe, hidden);
  const stray = present.find((key) => !known.has(key));
  if (stray !== undefined) {
    throw new CheckpointError('shape', dir, `is not part of the ${layout} expert layout this layer uses (expected ${layout === 'fused' ? `${FUSED_GATE_UP_KEY} and ${FUSED_DOWN_KEY}` : `mlp.experts.{0…${moe.numExperts - 1}}.{gate,up,down}_proj.weight`}); the expert layout is not supported`, prefix + stray);
  }
  return layout;
}

/** Expert e's three weights as stored per expert ([out, in]) out of the fused tensors. */
export function splitFusedExpert(gateUp: Float32Array, down: Float32Array, moe: MoeSpec, hidden: number, expert: number): Record<ExpertProjection, Float32Array> {
  const block = moe.expertIntermediateSize * hidden;
  const base = expert * 2 * block;
  return {
    gate_proj: gateUp.subarray(base, base + block),
    up_proj: gateUp.subarray(base + block, base + 2 * block),
    down_proj: down.subarray(expert * block, (expert + 1) * block),
  };
}

/** The inverse of splitFusedExpert for gradients: per-expert [out, in] arrays into the fused pair. */
export function fuseExpertArrays(moe: MoeSpec, hidden: number, perExpert: (expert: number, projection: ExpertProjection) => Float32Array): Map<string, Float32Array> {
  const block = moe.expertIntermediateSize * hidden;
  const gateUp = new Float32Array(moe.numExperts * 2 * block);
  const down = new Float32Array(moe.numExperts * block);
  for (let e = 0; e < moe.numExperts; e++) {
    gateUp.set(perExpert(e, 'gate_proj'), e * 2 * block);
    gateUp.set(perExpert(e, 'up_proj'), e * 2 * block + block);
    down.set(perExpert(e, 'down_proj'), e * block);
  }
  return new Map([[FUSED_GATE_UP_KEY, gateUp], [FUSED_DOWN_KEY, down]]);
}
