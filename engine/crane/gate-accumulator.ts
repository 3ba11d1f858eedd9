/**
 * Stage 2 of CRANE, first half: the per-block sums of the Conservative Taylor Gate.
 *
 *   const acc = new GateAccumulator();
 *   acc.add(classifyTensor(name), { thetaI, delta, gradR, gradA });   // any number of times
 *   acc.addSums(classifyTensor(name), gateSums(inputs))              // the same, the sums computed elsewhere
 *   acc.blocks()   → every block's GateSums, coarse (group, layer) and fine (group.block, layer;
 *                    a routed expert's block is the expert, see gateBlock)
 *
 * Per scalar coordinate j, with raw δ (no thresholding):
 *   s_R = −g_R·δ,  s_A = −g_A·δ,  p = max(0, min(s_R, s_A))
 * and each block keeps Σp, Σs_R, Σs_A, Σθ_I², Σδ², the coordinate count and the conflict mass.
 *
 * Conflict share (for the UI): the fraction of first-order mass Σ(|s_R| + |s_A|) that sits on
 * coordinates where s_R and s_A have strictly opposite signs — where one calibration set's
 * loss would go down and the other's up. 0 when the two gradients always agree on δ.
 *
 * All sums are float64. Every sum is additive, so a large tensor may be fed in slices (the
 * four arrays of one call must be aligned slices of equal length), and a tensor's gradients
 * may arrive in any order relative to other tensors. Only tensors inside decoder layers are
 * scored (the spec: gradients exist only for layer parameters); adding another throws.
 */
import { taylorSums } from './gate-sums-kernel.ts';
import type { LayerGroup, TensorClass } from './tensor-classification.ts';

export interface GateSums {
  readonly count: number;
  /** Σ p_j, the conservative (Pareto) first-order gain. */
  readonly positive: number;
  /** Σ s_R: predicted decrease of L_R under +δ (first order). */
  readonly reasoning: number;
  /** Σ s_A: predicted decrease of L_A under +δ (first order). */
  readonly agent: number;
  readonly thetaSquared: number;
  readonly deltaSquared: number;
  /** Σ (|s_R| + |s_A|) over coordinates with s_R·s_A < 0. */
  readonly conflictMass: number;
  /** Σ (|s_R| + |s_A|) over all coordinates. */
  readonly totalMass: number;
}

export interface GateInputs {
  readonly thetaI: Float32Array;
  readonly delta: Float32Array;
  readonly gradR: Float32Array;
  readonly gradA: Float32Array;
}

/** A gate block: coarse when `block` is null, one projection when it is set. `layer` null = global. */
export interface BlockId {
  readonly group: LayerGroup;
  readonly block: string | null;
  readonly layer: number | null;
}

/**
 * A tensor's fine gate block: its projection (q, gate, …), except a routed expert's own tensors,
 * whose fine block is the expert (`expert.17@3`): S per expert, pooled over its gate/up/down, as
 * the layer × expert views show it. A fused expert tensor (every expert in one tensor) is fed as
 * the per-expert parts it stores (expert-parts.ts), so its experts get the same blocks.
 */
export function gateBlock(tensor: Pick<TensorClass, 'block' | 'expert'>): string {
  return tensor.expert === null ? tensor.block : String(tensor.expert);
}

/** Stable string key of a block: `attention@3`, `attention.q@3`, `expert.17@3`, `attention@*` (global). */
export function blockKey(id: BlockId): string {
  return `${id.group}${id.block === null ? '' : `.${id.block}`}@${id.layer ?? '*'}`;
}

export const EMPTY_SUMS: GateSums = {
  count: 0, positive: 0, reasoning: 0, agent: 0, thetaSquared: 0, deltaSquared: 0, conflictMass: 0, totalMass: 0,
};

export function addSums(a: GateSums, b: GateSums): GateSums {
  return {
    count: a.count + b.count,
    positive: a.positive + b.positive,
    reasoning: a.reasoning + b.reasoning,
    agent: a.agent + b.agent,
    thetaSquared: a.thetaSquared + b.thetaSquared,
    deltaSquared: a.deltaSquared + b.deltaSquared,
    conflictMass: a.conflictMass + b.conflictMass,
    totalMass: a.totalMass + b.totalMass,
  };
}

/** The sums of one slice of one tensor. */
export function gateSums(inputs: GateInputs): GateSums {
  const { thetaI, delta, gradR, gradA } = inputs;
  const n = delta.length;
  if (thetaI.length !== n || gradR.length !== n || gradA.length !== n) {
    throw new RangeError(`gate inputs differ in length: θ_I ${thetaI.length}, δ ${n}, g_R ${gradR.length}, g_A ${gradA.length}`);
  }
  return { count: n, ...taylorSums(thetaI, delta, gradR, gradA) };
}

export class GateAccumulator {
  private readonly sums = new Map<string, { id: BlockId; sums: GateSums }>();

  add(tensor: TensorClass, inputs: GateInputs): void {
    this.addSums(tensor, gateSums(inputs));
  }

  /** A slice's sums computed elsewhere (gateSums, e.g. on a worker thread). */
  addSums(tensor: TensorClass, slice: GateSums): void {
    if (tensor.layer === null || !isLayerGroup(tensor.group)) {
      throw new RangeError(`${tensor.name} is outside the decoder layers; only layer parameters are scored`);
    }
    this.merge({ group: tensor.group, block: null, layer: tensor.layer }, slice);
    this.merge({ group: tensor.group, block: gateBlock(tensor), layer: tensor.layer }, slice);
  }

  /** Every block fed so far (coarse and fine, per layer); globals are derived in gate-scales. */
  blocks(): readonly { readonly id: BlockId; readonly sums: GateSums }[] {
    return [...this.sums.values()];
  }

  private merge(id: BlockId, slice: GateSums): void {
    const key = blockKey(id);
    const entry = this.sums.get(key);
    this.sums.set(key, { id, sums: addSums(entry?.sums ?? EMPTY_SUMS, slice) });
  }
}

function isLayerGroup(group: TensorClass['group']): group is LayerGroup {
  return group !== 'embed' && group !== 'lm_head' && group !== 'final_norm';
}
