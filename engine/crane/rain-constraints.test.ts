import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { rainHeadConstraints, rainReferenceAttention, rainSites } from './rain-constraints.ts';
import type { RankOneConstraints } from './rain-projection.ts';
import { referenceAttentionRows, referenceHeadConstraints } from './testing/reference-rain.ts';

const [T, D_MODEL, HEAD_DIM, HEADS, KV_HEADS] = [7, 4, 2, 4, 2];

function grid(values: ArrayLike<number>, rows: number, cols: number): number[][] {
  return Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => values[i * cols + j] ?? NaN));
}

/** Causal softmax rows of random scores: what an attention head reads. */
function causalAttention(random: SeededRandom): Float64Array {
  const a = new Float64Array(T * T);
  for (let t = 0; t < T; t++) {
    const scores = Array.from({ length: t + 1 }, () => Math.exp(random.normal()));
    const total = scores.reduce((s, v) => s + v, 0);
    scores.forEach((v, tau) => { a[t * T + tau] = v / total; });
  }
  return a;
}

function expectSame(ours: RankOneConstraints, expected: { x: number[][]; r: number[][]; s: number[] }): void {
  expect(ours.count).toBe(expected.s.length);
  expect(grid(ours.inputs, ours.count, ours.inputs.length / Math.max(ours.count, 1)).flat()).toEqual(expected.x.flat().map((v) => expect.closeTo(v, 10)));
  expect(grid(ours.partners, ours.count, ours.partners.length / Math.max(ours.count, 1)).flat()).toEqual(expected.r.flat().map((v) => expect.closeTo(v, 10)));
  expect(Array.from(ours.scales)).toEqual(expected.s.map((v) => expect.closeTo(v, 14)));
}

describe('RAIN reasoning constraints', () => {
  it('takes the <think>/</think> neighbourhoods as the reference: pairs (s, i), (i, e); positions N₀ ∪ N₁', () => {
    const sites = rainSites(2, 9, 11, { radius: 2, q: 100, k: 3, v: 100, o: 2 }, new SeededRandom(1));
    const sortPairs = (pairs: readonly (readonly [number, number])[]) => pairs.map((p) => p.join(',')).sort();
    expect(sortPairs(sites.pairsQ)).toEqual(sortPairs([[2, 2], [2, 3], [2, 4], [7, 9], [8, 9], [9, 9]]));
    expect(sites.pairsK).toEqual(sites.pairsQ.slice(0, 3));
    expect([...sites.positionsV].sort((a, b) => a - b)).toEqual([2, 3, 4, 7, 8, 9]);
    expect(sites.positionsO).toEqual(sites.positionsV.slice(0, 2));
    // the start neighbourhood is cut at the sequence end; the end one at position 0
    expect([...rainSites(5, 1, 6, { radius: 3, q: 0, k: 0, v: 100, o: 0 }, new SeededRandom(2)).positionsV].sort((a, b) => a - b)).toEqual([0, 1, 5]);
  });

  it.each([0, 1, 2, 3])('head %i: Q/K/V/O rows equal the full-matrix reference (GQA, two read-out directions)', (head) => {
    const random = new SeededRandom(40 + head);
    const inputs = Float64Array.from({ length: T * D_MODEL }, () => random.normal());
    const weights = {
      q: random.normals(HEADS * HEAD_DIM * D_MODEL, 1),
      k: random.normals(KV_HEADS * HEAD_DIM * D_MODEL, 1),
      v: random.normals(KV_HEADS * HEAD_DIM * D_MODEL, 1),
      o: random.normals(D_MODEL * HEADS * HEAD_DIM, 1),
    };
    const attention = causalAttention(random);
    const readouts = [0, 1].map(() => {
      const c = Float64Array.from({ length: D_MODEL }, () => random.normal());
      const norm = Math.hypot(...c);
      return c.map((v) => v / norm);
    });
    const sites = { pairsQ: [[1, 0], [3, 5]] as const, pairsK: [[6, 2]] as const, positionsV: [0, 4, 6], positionsO: [5, 2] };
    const scales = { q: 1, k: 0.5, v: 2, o: 1.5 };
    const ours = rainHeadConstraints({ inputs, length: T, attention: (h) => (h === head ? attention : new Float64Array(T * T)) }, weights, { dModel: D_MODEL, headDim: HEAD_DIM, kvHeads: KV_HEADS }, sites, readouts, scales, head);
    const expected = referenceHeadConstraints(
      grid(inputs, T, D_MODEL), grid(weights.q, HEADS * HEAD_DIM, D_MODEL), grid(weights.k, KV_HEADS * HEAD_DIM, D_MODEL),
      grid(weights.v, KV_HEADS * HEAD_DIM, D_MODEL), grid(weights.o, D_MODEL, HEADS * HEAD_DIM), grid(attention, T, T),
      head, HEAD_DIM, KV_HEADS, sites.pairsQ, sites.pairsK, sites.positionsV, sites.positionsO, readouts.map((c) => Array.from(c)), scales,
    );
    for (const kind of ['q', 'k', 'v', 'o'] as const) expectSame(ours[kind], expected[kind]);
  });

  it.each([0, 1, 2, 3])('head %i: attention rows recomputed from raw q/k (no RoPE) equal softmax(Q Kᵀ/√hD) with repeat_interleave', (head) => {
    const random = new SeededRandom(70 + head);
    const inputs = Float64Array.from({ length: T * D_MODEL }, () => random.normal());
    const q = random.normals(HEADS * HEAD_DIM * D_MODEL, 1);
    const k = random.normals(KV_HEADS * HEAD_DIM * D_MODEL, 1);
    const ours = rainReferenceAttention({ inputs, length: T }, { q, k }, { dModel: D_MODEL, headDim: HEAD_DIM, kvHeads: KV_HEADS, heads: HEADS }, head);
    const expected = referenceAttentionRows(grid(inputs, T, D_MODEL), grid(q, HEADS * HEAD_DIM, D_MODEL), grid(k, KV_HEADS * HEAD_DIM, D_MODEL), head, HEAD_DIM, HEADS, KV_HEADS);
    expect(Array.from(ours)).toEqual(expected.flat().map((v) => expect.closeTo(v, 12)));
  });

  it('drops sites past the captured length (the reference skips t ≥ T)', () => {
    const zeros = new Float32Array(64);
    const out = rainHeadConstraints(
      { inputs: new Float64Array(3 * D_MODEL), length: 3, attention: () => new Float64Array(9) },
      { q: zeros, k: zeros, v: zeros, o: zeros }, { dModel: D_MODEL, headDim: HEAD_DIM, kvHeads: KV_HEADS },
      { pairsQ: [[0, 5], [1, 2]], pairsK: [[4, 0]], positionsV: [3], positionsO: [2] }, [Float64Array.of(1, 0, 0, 0)], { q: 1, k: 1, v: 1, o: 1 }, 0,
    );
    expect([out.q.count, out.k.count, out.v.count, out.o.count]).toEqual([1, 0, 0, 1]);
  });
});
