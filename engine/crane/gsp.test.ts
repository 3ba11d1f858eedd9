import { describe, expect, it } from 'vitest';
import { GramAccumulator } from './gram-accumulator.ts';
import { sigmoidWeights } from '../protocol/gsp-mask.ts';
import { projectInputSide, projectorFromGram, projectorOfRows, type GspProjector } from './gsp-projector.ts';

function lcg(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
}

function unitProjector(v: number[]): GspProjector {
  const norm = Math.hypot(...v);
  return { dim: v.length, rank: 1, basis: Float32Array.from(v, (x) => x / norm), sigma: Float64Array.of(1) };
}

describe('GramAccumulator', () => {
  it('accumulates HᵀH (not mean-centred) across flushes and both entry points', () => {
    const d = 5;
    const next = lcg(3);
    const rows = Float64Array.from({ length: 600 * d }, next); // > 2 flush blocks of 256
    const expected = new Float64Array(d * d);
    for (let r = 0; r < 600; r++) for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) expected[i * d + j] = (expected[i * d + j] as number) + (rows[r * d + i] as number) * (rows[r * d + j] as number);
    const streamed = new GramAccumulator(d);
    streamed.addRows(rows.subarray(0, 7 * d));
    streamed.addRows(rows.subarray(7 * d));
    const viaGram = new GramAccumulator(d);
    viaGram.addGram(expected, 600);
    for (const acc of [streamed, viaGram]) {
      expect(acc.rowCount).toBe(600);
      acc.gram().forEach((v, i) => expect(v).toBeCloseTo(expected[i] as number, 10));
    }
  });

  it('keeps a constant offset as a direction (no centring)', () => {
    const acc = new GramAccumulator(2);
    acc.addRows(Float32Array.of(1, 1, 1, 1, 1, 1));
    expect(Array.from(acc.gram())).toEqual([3, 3, 3, 3]);
  });

  it('keeps its rows up to d/4 of them, and none once a partial Gram (rows unknown) is added', () => {
    const acc = new GramAccumulator(8);
    acc.addRows(Float32Array.from({ length: 16 }, (_, i) => i));
    expect(Array.from(acc.keptRows() ?? [])).toEqual(Array.from({ length: 16 }, (_, i) => i));
    acc.addRows(new Float32Array(8)); // a third row: more than 8/4
    expect(acc.keptRows()).toBeUndefined();
    const partial = new GramAccumulator(8);
    partial.addGram(new Float64Array(64), 1);
    expect(partial.keptRows()).toBeUndefined();
  });

  it('gives the same Gram, bit for bit, whether asked for before the rows or after (rows kept until then)', () => {
    const d = 64; // keeps up to 16 rows
    const next = lcg(5);
    const chunks = Array.from({ length: 40 }, () => Float32Array.from({ length: 7 * d }, next)); // 280 rows: past a 256-row block
    const eager = new GramAccumulator(d);
    eager.gram();
    const lazy = new GramAccumulator(d);
    const atKeptLimit = new GramAccumulator(d);
    chunks.forEach((chunk, i) => {
      eager.addRows(chunk);
      lazy.addRows(chunk);
      if (i < 2) atKeptLimit.addRows(chunk); // 14 rows, all kept
    });
    expect(lazy.keptRows()).toBeUndefined();
    expect(lazy.gram()).toEqual(eager.gram());
    const kept = atKeptLimit.keptRows() as Float64Array;
    expect(kept).toHaveLength(14 * d);
    const direct = new GramAccumulator(d);
    direct.gram();
    direct.addRows(kept);
    expect(atKeptLimit.gram()).toEqual(direct.gram());
    expect(atKeptLimit.keptRows()).toEqual(kept); // asking for the Gram keeps the rows
  });

  it('rejects partial rows and non-finite activations', () => {
    expect(() => new GramAccumulator(3).addRows(new Float32Array(4))).toThrow(RangeError);
    expect(() => new GramAccumulator(1).addRows(Float32Array.of(Number.POSITIVE_INFINITY))).toThrow(/non-finite/);
  });
});

describe('projectorFromGram', () => {
  it('gives σ = singular values of H and V its right singular vectors: H = diag(3, 4)', () => {
    const p = projectorFromGram(Float64Array.of(9, 0, 0, 16), 2);
    expect(p.rank).toBe(2);
    expect(Array.from(p.sigma)).toEqual([4, 3]);
    expect(Math.abs(p.basis[1 * 2 + 0] as number)).toBe(1); // direction 0 is e₂: coordinate 1 of column 0
  });

  it('keeps only σ_i > 1e-5·σ_1', () => {
    // σ = 1, 1e-4, 1e-6, 0 → only the first two pass the 1e-5 cut.
    const gram = new Float64Array(16);
    [1, 1e-8, 1e-12, 0].forEach((lambda, i) => (gram[i * 4 + i] = lambda));
    expect(projectorFromGram(gram, 4).rank).toBe(2);
    expect(projectorFromGram(gram, 4, { rankCut: 1e-7 }).rank).toBe(3);
    expect(projectorFromGram(gram, 4, { maxRank: 1 }).rank).toBe(1);
  });

  it('caps the rank at r_max = 256 by default', () => {
    const d = 260;
    const gram = new Float64Array(d * d);
    for (let i = 0; i < d; i++) gram[i * d + i] = 1 + i;
    const p = projectorFromGram(gram, d);
    expect(p.rank).toBe(256);
    expect(p.sigma[0]).toBeCloseTo(Math.sqrt(260), 12);
  });

  // H = [3 4] (one row): HᵀH = [[9, 12], [12, 16]] has σ = 5 along (0.6, 0.8); the reference
  // computes no projector from fewer than 2 rows, and keeps at most n directions from n rows.
  it('gives no direction from fewer than 2 rows and at most n from n rows, as the reference', () => {
    const oneRow = Float64Array.of(9, 12, 12, 16);
    expect(projectorFromGram(oneRow, 2).rank).toBe(1);
    expect(projectorFromGram(oneRow, 2, { rowCount: 1 }).rank).toBe(0);
    expect(projectorFromGram(new Float64Array(4), 2, { rowCount: 0 }).rank).toBe(0);
    // H = [[3, 0], [0, 4]] (two rows): σ = (4, 3); two rows allow both.
    expect(Array.from(projectorFromGram(Float64Array.of(9, 0, 0, 16), 2, { rowCount: 2 }).sigma)).toEqual([4, 3]);
    // A rank-3 Gram (σ = 3, 2, 1) said to come from 2 rows: the row cap, not the σ cut, keeps 2.
    expect(projectorFromGram(Float64Array.of(1, 0, 0, 0, 4, 0, 0, 0, 9), 3, { rowCount: 2 }).rank).toBe(2);
  });

  it('stores no projector for a key with fewer than 2 captured rows or only zero rows', () => {
    const one = new GramAccumulator(2);
    one.addRows(Float32Array.of(3, 4));
    expect(projectorOfRows(one)).toBeUndefined();
    one.addRows(Float32Array.of(0, 0));
    expect(projectorOfRows(one)).toMatchObject({ rank: 1, sigma: Float64Array.of(5) }); // 2 rows, one direction (0.6, 0.8)
    const zeros = new GramAccumulator(2);
    zeros.addRows(new Float32Array(6));
    expect(projectorOfRows(zeros)).toBeUndefined();
  });

  it('has rank 0 for an all-zero Gram matrix', () => {
    expect(projectorFromGram(new Float64Array(9), 3).rank).toBe(0);
  });
});

describe('projectorOfRows', () => {
  it('solves a small sample from its rows and gives the projector the Gram path gives (V·Vᵀ, σ)', () => {
    const d = 16;
    const next = lcg(8);
    const rows = Float32Array.from({ length: 4 * d }, next); // 4 rows ≤ d/4: kept
    const acc = new GramAccumulator(d);
    acc.addRows(rows);
    expect(acc.keptRows()).toBeDefined();
    const fromRows = projectorOfRows(acc) as GspProjector;
    const fromGram = projectorFromGram(acc.gram(), d, { rowCount: 4 });
    expect(fromRows.rank).toBe(4);
    expect(fromGram.rank).toBe(4);
    fromRows.sigma.forEach((s, i) => expect(s).toBeCloseTo(fromGram.sigma[i] as number, 10));
    const outer = (p: GspProjector, a: number, b: number) => Array.from({ length: p.rank }, (_, i) => (p.basis[a * p.rank + i] as number) * (p.basis[b * p.rank + i] as number)).reduce((x, y) => x + y, 0);
    for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) expect(outer(fromRows, a, b)).toBeCloseTo(outer(fromGram, a, b), 6);
  });
});

describe('sigmoid weights', () => {
  it('≈0.01 at σ/σ₁ = 0, 0.5 at τ, ≈0.99 at 2τ, →1 at σ₁ (τ = 0.03, k = 4.6/τ)', () => {
    const w = sigmoidWeights(Float64Array.of(1, 0.06, 0.03, 0));
    expect(w[0]).toBeGreaterThan(0.9999);
    expect(w[1]).toBeCloseTo(1 / (1 + Math.exp(-4.6)), 12);
    expect(w[1]).toBeCloseTo(0.99, 2);
    expect(w[2]).toBeCloseTo(0.5, 12);
    expect(w[3]).toBeCloseTo(1 / (1 + Math.exp(4.6)), 12);
    expect(w[3]).toBeCloseTo(0.01, 3);
  });

  it('honours τ and k, and is all zero when σ₁ = 0', () => {
    expect(sigmoidWeights(Float64Array.of(2, 1), 0.5, 10)[1]).toBeCloseTo(0.5, 12);
    expect(Array.from(sigmoidWeights(Float64Array.of(0, 0)))).toEqual([0, 0]);
  });
});

describe('projectInputSide', () => {
  const delta = Float32Array.of(1, 2, 3, -4, 0.5, 2); // 2 × 3
  const v = [1, -2, 2];
  const dot = (row: number, values: Float32Array) => v.reduce((acc, x, j) => acc + x * (values[row * 3 + j] as number), 0) / 3;

  it('annihilates a protected direction when w = 1: Δ′·v = 0', () => {
    const out = projectInputSide(delta, 3, unitProjector(v), Float64Array.of(1));
    expect(dot(0, out)).toBeCloseTo(0, 6);
    expect(dot(1, out)).toBeCloseTo(0, 6);
  });

  it('leaves Δ unchanged at w = 0 and halves the component at w = 0.5', () => {
    expect(Array.from(projectInputSide(delta, 3, unitProjector(v), Float64Array.of(0)))).toEqual(Array.from(delta));
    const half = projectInputSide(delta, 3, unitProjector(v), Float64Array.of(0.5));
    expect(dot(0, half)).toBeCloseTo(dot(0, delta) / 2, 6);
  });

  it('leaves the orthogonal complement alone', () => {
    const out = projectInputSide(Float32Array.of(2, 1, 0), 3, unitProjector(v), Float64Array.of(1)); // (2,1,0)·(1,−2,2) = 0
    expect(Array.from(out)).toEqual([2, 1, 0]);
  });

  it('projects every row of a 3-D tensor whose last dimension is d_in', () => {
    const fused = Float32Array.from({ length: 2 * 2 * 3 }, lcg(5));
    const out = projectInputSide(fused, 3, unitProjector(v), Float64Array.of(1));
    for (let row = 0; row < 4; row++) expect(dot(row, out)).toBeCloseTo(0, 6);
  });

  it('equals Δ − Δ·V·diag(w)·Vᵀ computed plainly, for row counts that are and are not multiples of four', () => {
    const d = 6;
    const gram = new Float64Array(d * d);
    const next = lcg(21);
    const h = Float64Array.from({ length: 10 * d }, next);
    for (let r = 0; r < 10; r++) for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) gram[i * d + j] = (gram[i * d + j] as number) + (h[r * d + i] as number) * (h[r * d + j] as number);
    const projector = projectorFromGram(gram, d, { maxRank: 3 });
    const w = Float64Array.of(0.9, 0.5, 0.2);
    for (const rows of [8, 7]) {
      const input = Float32Array.from({ length: rows * d }, next);
      const out = projectInputSide(input, d, projector, w);
      for (let r = 0; r < rows; r++) {
        for (let j = 0; j < d; j++) {
          let removed = 0;
          for (let i = 0; i < 3; i++) {
            let c = 0;
            for (let k = 0; k < d; k++) c += (input[r * d + k] as number) * (projector.basis[k * 3 + i] as number);
            removed += c * (w[i] as number) * (projector.basis[j * 3 + i] as number);
          }
          expect(out[r * d + j]).toBeCloseTo((input[r * d + j] as number) - removed, 6);
        }
      }
    }
  });

  it('rejects width and weight-count mismatches', () => {
    expect(() => projectInputSide(delta, 2, unitProjector(v), Float64Array.of(1))).toThrow(/3-wide/);
    expect(() => projectInputSide(delta, 3, unitProjector(v), Float64Array.of(1, 1))).toThrow(/weights/);
  });
});
