/**
 * RAIN stage 3 for one attention projection tensor: merged = thinking + Σ_h α_h · proj_h(τ_h).
 *
 *   rainAttentionEdit(input) → merged weights (Float32Array, the tensor's row-major layout)
 *
 * τ = instruct − base. Head h's slice of τ is taken as the reference takes it (d_model × head_dim):
 *   q:    rows h·hD … (h+1)·hD of q_proj, transposed
 *   k, v: rows kv·hD … (kv+1)·hD of k_proj / v_proj, transposed, with kv = h mod kvHeads
 *   o:    columns h·hD … (h+1)·hD of o_proj
 * Each slice is projected onto its head's constraint null space (rain-projection.ts), scaled by
 * the head's α and added back to the thinking checkpoint in the same place. As in the reference,
 * K and V are edited once per QUERY head: with grouped-query attention every query head that maps
 * to a kv head adds its own projected copy of that kv head's slice. Heads without an entry keep
 * the thinking weights.
 */

import { projectTaskSlice, type RankOneConstraints } from './rain-projection.ts';

export type RainProjectionKind = 'q' | 'k' | 'v' | 'o';

export interface RainHeadEdit {
  readonly head: number;
  readonly alpha: number;
  readonly constraints: RankOneConstraints;
}

export interface RainAttentionInput {
  readonly kind: RainProjectionKind;
  readonly name: string;
  readonly shape: readonly [number, number];
  readonly base: Float32Array;
  readonly instruct: Float32Array;
  readonly thinking: Float32Array;
  readonly headDim: number;
  readonly kvHeads: number;
  readonly heads: readonly RainHeadEdit[];
  readonly ridge: number;
}

export function rainAttentionEdit(input: RainAttentionInput): Float32Array {
  const { kind, name, shape, base, instruct, thinking, headDim, kvHeads } = input;
  const [rows, cols] = shape;
  for (const [label, values] of [['base', base], ['instruct', instruct], ['thinking', thinking]] as const) {
    if (values.length !== rows * cols) throw new RangeError(`${name}: ${label} has ${values.length} values, expected ${rows}×${cols}`);
  }
  const dModel = kind === 'o' ? rows : cols;
  const blockWidth = kind === 'o' ? cols : rows;
  const merged = Float64Array.from(thinking);
  for (const edit of input.heads) {
    const block = kind === 'k' || kind === 'v' ? edit.head % kvHeads : edit.head;
    const start = block * headDim;
    if (start + headDim > blockWidth) throw new RangeError(`${name}: head ${edit.head} (block ${block}) lies outside ${rows}×${cols}`);
    // Slice position (a, b): a over d_model, b over the head's dims.
    const at = kind === 'o' ? (a: number, b: number) => a * cols + start + b : (a: number, b: number) => (start + b) * cols + a;
    const slice = new Float64Array(dModel * headDim);
    for (let a = 0; a < dModel; a++) {
      for (let b = 0; b < headDim; b++) {
        const k = at(a, b);
        slice[a * headDim + b] = (instruct[k] as number) - (base[k] as number);
      }
    }
    const projected = projectTaskSlice(slice, dModel, headDim, edit.constraints, input.ridge);
    for (let a = 0; a < dModel; a++) {
      for (let b = 0; b < headDim; b++) {
        const k = at(a, b);
        merged[k] = (merged[k] as number) + edit.alpha * (projected[a * headDim + b] as number);
      }
    }
  }
  return Float32Array.from(merged);
}
