/**
 * RAIN's reasoning constraints for one layer, built from the thinking model's features on LRM
 * prompts (nullspace_merge_qkvo_ffn.py, build_constraints_single_layer_unified, Q/K/V/O only).
 *
 *   rainSites(thinkStart, thinkEnd, length, rows, random)  → which positions / pairs constrain
 *   rainHeadConstraints(features, weights, geometry, sites, readouts, head) → { q, k, v, o }
 *   rainReferenceAttention(features, weights, geometry, head) → A_h as the reference computes it
 *
 * Sites: the neighbourhoods N₀ = [s, s+radius] and N₁ = [e−radius, e] of the <think> (s) and
 * </think> (e) tokens. Q/K pairs are (s, i) for i ∈ N₀ and (i, e) for i ∈ N₁, shuffled, the first
 * qRows for Q and kRows for K (the same shuffled prefix, as the reference); V/O positions are
 * N₀ ∪ N₁ (the two lists concatenated), shuffled, the first vRows / oRows.
 *
 * With X the layer's attention input (post input-norm, T × d_model), A_h head h's attention
 * rows, K_h = X W_K,kvᵀ, Q_h = X W_Q,hᵀ, V_h = X W_V,kvᵀ (kv = h mod kvHeads) and unit read-out
 * directions c ∈ R^d_model, every constraint is rank one (see rain-projection.ts), scale w/√hD:
 *   Q: x = X[i],          r = K_h[j]          for (i, j) in the Q pairs
 *   K: x = X[j],          r = Q_h[i]          for (i, j) in the K pairs
 *   V: x = Σ_τ A_h[t,τ] X[τ],  r = W_O,hᵀ c   for t in the V positions, every c
 *   O: x = c,             r = Σ_τ A_h[t,τ] V_h[τ]   for t in the O positions, every c
 */

import type { SeededRandom } from '../protocol/seeded-random.ts';
import type { RankOneConstraints } from './rain-projection.ts';

export interface RainSites {
  readonly pairsQ: readonly (readonly [number, number])[];
  readonly pairsK: readonly (readonly [number, number])[];
  readonly positionsV: readonly number[];
  readonly positionsO: readonly number[];
}

export interface RainSiteRows {
  readonly radius: number;
  readonly q: number;
  readonly k: number;
  readonly v: number;
  readonly o: number;
}

export interface RainGeometry {
  readonly dModel: number;
  readonly headDim: number;
  readonly kvHeads: number;
}

export interface RainLayerFeatures {
  /** T × d_model row-major: the attention input of every position. */
  readonly inputs: Float64Array;
  readonly length: number;
  /** Head h's attention weights, T × T row-major (row t: how position t reads every τ). */
  readonly attention: (head: number) => Float64Array;
}

export interface RainLayerWeights {
  readonly q: Float32Array;
  readonly k: Float32Array;
  readonly v: Float32Array;
  readonly o: Float32Array;
}

export interface RainConstraintWeights {
  readonly q: number;
  readonly k: number;
  readonly v: number;
  readonly o: number;
}

export function rainSites(thinkStart: number, thinkEnd: number, length: number, rows: RainSiteRows, random: SeededRandom): RainSites {
  const startNeighbours = range(thinkStart, Math.min(length, thinkStart + rows.radius + 1));
  const endNeighbours = range(Math.max(0, thinkEnd - rows.radius), thinkEnd + 1);
  const pairs = random.shuffle([
    ...startNeighbours.map((i) => [thinkStart, i] as const),
    ...endNeighbours.map((i) => [i, thinkEnd] as const),
  ]);
  const positions = random.shuffle([...startNeighbours, ...endNeighbours].sort((a, b) => a - b));
  return { pairsQ: pairs.slice(0, rows.q), pairsK: pairs.slice(0, rows.k), positionsV: positions.slice(0, rows.v), positionsO: positions.slice(0, rows.o) };
}

export function rainHeadConstraints(
  features: RainLayerFeatures,
  weights: RainLayerWeights,
  geometry: RainGeometry,
  sites: RainSites,
  readouts: readonly Float64Array[],
  scales: RainConstraintWeights,
  head: number,
): Record<'q' | 'k' | 'v' | 'o', RankOneConstraints> {
  const { dModel, headDim, kvHeads } = geometry;
  const kv = head % kvHeads;
  const inputRow = (t: number) => features.inputs.subarray(t * dModel, (t + 1) * dModel);
  const project = (w: Float32Array, block: number, x: Float64Array) => headProjection(x, w, block, headDim);
  const attended = (t: number, value: (tau: number) => Float64Array, width: number) => {
    const row = features.attention(head).subarray(t * features.length, (t + 1) * features.length);
    const out = new Float64Array(width);
    row.forEach((weight, tau) => {
      if (weight === 0) return;
      const v = value(tau);
      for (let a = 0; a < width; a++) out[a] = (out[a] as number) + weight * (v[a] as number);
    });
    return out;
  };
  const oColumns = (c: Float64Array) => {
    const oWidth = weights.o.length / dModel;
    const r = new Float64Array(headDim);
    for (let b = 0; b < headDim; b++) {
      let sum = 0;
      for (let a = 0; a < dModel; a++) sum += (weights.o[a * oWidth + head * headDim + b] as number) * (c[a] as number);
      r[b] = sum;
    }
    return r;
  };
  // V_h rows are read by every O position; each is computed once.
  const values = new Map<number, Float64Array>();
  const valueRow = (tau: number) => values.get(tau) ?? values.set(tau, project(weights.v, kv, inputRow(tau))).get(tau) as Float64Array;
  const scale = (w: number) => w / Math.sqrt(headDim);
  const inside = (t: number) => t < features.length;
  return {
    q: stack(sites.pairsQ.filter(([i, j]) => inside(i) && inside(j)).map(([i, j]) => [inputRow(i), project(weights.k, kv, inputRow(j))]), scale(scales.q)),
    k: stack(sites.pairsK.filter(([i, j]) => inside(i) && inside(j)).map(([i, j]) => [inputRow(j), project(weights.q, head, inputRow(i))]), scale(scales.k)),
    v: stack(sites.positionsV.filter(inside).flatMap((t) => {
      const x = attended(t, inputRow, dModel);
      return readouts.map((c) => [x, oColumns(c)] as const);
    }), scale(scales.v)),
    o: stack(sites.positionsO.filter(inside).flatMap((t) => {
      const u = attended(t, valueRow, headDim);
      return readouts.map((c) => [c, u] as const);
    }), scale(scales.o)),
  };
}

/**
 * Head h's attention rows as the reference recomputes them from the raw q_proj / k_proj outputs
 * (compute_attention_weights_from_qkv): causal softmax of Q_h K_jᵀ / √hD with j = ⌊h / group⌋
 * (repeat_interleave), without RoPE or q/k norms — NOT the model's true attention, which
 * engine/model/rain-features.ts captures. Max-subtracted for stability, as the reference.
 */
export function rainReferenceAttention(features: Pick<RainLayerFeatures, 'inputs' | 'length'>, weights: Pick<RainLayerWeights, 'q' | 'k'>, geometry: RainGeometry & { readonly heads: number }, head: number): Float64Array {
  const { dModel, headDim, kvHeads, heads } = geometry;
  const t = features.length;
  const rowsOf = (w: Float32Array, block: number) => Array.from({ length: t }, (_, i) => headProjection(features.inputs.subarray(i * dModel, (i + 1) * dModel), w, block, headDim));
  const queries = rowsOf(weights.q, head);
  const keys = rowsOf(weights.k, Math.floor(head / (heads / kvHeads)));
  const out = new Float64Array(t * t);
  for (let i = 0; i < t; i++) {
    const scores = keys.slice(0, i + 1).map((k) => dot(queries[i] as Float64Array, k) / Math.sqrt(headDim));
    const top = Math.max(...scores);
    const exps = scores.map((v) => Math.exp(v - top));
    const total = exps.reduce((sum, v) => sum + v, 0);
    exps.forEach((v, j) => { out[i * t + j] = v / total; });
  }
  return out;
}

/** y[b] = Σ_a x[a] W[block·hD + b, a]: one position through one head's rows of q/k/v_proj. */
function headProjection(x: Float64Array, w: Float32Array, block: number, headDim: number): Float64Array {
  const dModel = x.length;
  const y = new Float64Array(headDim);
  for (let b = 0; b < headDim; b++) {
    let sum = 0;
    for (let a = 0; a < dModel; a++) sum += (x[a] as number) * (w[(block * headDim + b) * dModel + a] as number);
    y[b] = sum;
  }
  return y;
}

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let k = 0; k < a.length; k++) sum += (a[k] as number) * (b[k] as number);
  return sum;
}

function stack(rows: readonly (readonly [Float64Array, Float64Array])[], scale: number): RankOneConstraints {
  const first = rows[0];
  const [dIn, dOut] = first === undefined ? [0, 0] : [first[0].length, first[1].length];
  const inputs = new Float64Array(rows.length * dIn);
  const partners = new Float64Array(rows.length * dOut);
  rows.forEach(([x, r], i) => {
    inputs.set(x, i * dIn);
    partners.set(r, i * dOut);
  });
  return { count: rows.length, inputs, partners, scales: new Float64Array(rows.length).fill(scale) };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}
