/**
 * The sketch against the matrix it samples: a random symmetric indefinite M, columns Y = M·W
 * computed exactly, and M̃ rebuilt from its stored eigenpairs — symmetric, equal to M on
 * span(W) (M̃w = Mw, xᵀM̃y = xᵀMy with x in the span), M itself when W spans everything; and the
 * probe cells of a 28-layer-shaped direction list (every direction once, the default edit's two
 * parts in the span at any budget).
 */
import { describe, expect, it } from 'vitest';
import type { EditDirection } from '../crane/edit-directions.ts';
import { uniformStream } from '../crane/tensor-random-stream.ts';
import { curvatureOperator } from './curvature-operator.ts';
import { probeCells, sketchedCurvature } from './curvature-sketch.ts';

const B = 20;
const random = uniformStream(11, 'curvature-sketch');
const M = (() => {
  const m = new Float64Array(B * B);
  for (let i = 0; i < B; i++) for (let j = 0; j <= i; j++) m[i * B + j] = m[j * B + i] = random() * 2 - 1;
  return m;
})();
const vector = () => Float64Array.from({ length: B }, () => random() * 2 - 1);
const times = (matrix: Float64Array, x: Float64Array) => Float64Array.from({ length: B }, (_, i) => x.reduce((sum, xj, j) => sum + (matrix[i * B + j] as number) * xj, 0));
const dot = (a: Float64Array, b: Float64Array) => a.reduce((sum, ai, i) => sum + ai * (b[i] as number), 0);

/** M̃ written out from the file's form: V·diag(w)·Vᵀ. */
function rebuilt(f: ReturnType<typeof sketchedCurvature>): Float64Array {
  const k = f.weights.length;
  const out = new Float64Array(B * B);
  for (let i = 0; i < B; i++) for (let j = 0; j < B; j++) for (let e = 0; e < k; e++) out[i * B + j] = (out[i * B + j] as number) + (f.vectors[i * k + e] as number) * (f.weights[e] as number) * (f.vectors[j * k + e] as number);
  return out;
}

function sketchOf(probes: Float64Array[]) {
  return sketchedCurvature(probes, probes.map((w) => times(M, w)), B);
}

describe('curvature sketch', () => {
  it('is symmetric and equals M on the probes\' span, from either side', () => {
    const probes = [vector(), vector(), vector(), vector()];
    const sketch = sketchOf(probes);
    const m = rebuilt(sketch);
    for (let i = 0; i < B; i++) for (let j = 0; j < i; j++) expect(m[i * B + j]).toBeCloseTo(m[j * B + i] as number, 12);
    for (const w of probes) {
      const exact = times(M, w);
      times(m, w).forEach((x, b) => expect(x).toBeCloseTo(exact[b] as number, 10));
    }
    const inSpan = probes.reduce((sum, w, j) => sum.map((x, b) => x + (j + 1) * (w[b] as number)), new Float64Array(B));
    const anywhere = vector();
    expect(dot(anywhere, times(m, inSpan))).toBeCloseTo(dot(anywhere, times(M, inSpan)), 10);
    // Off the span the sketch differs: what no probe touched is left out.
    expect(Math.abs(dot(anywhere, times(m, anywhere)) - dot(anywhere, times(M, anywhere)))).toBeGreaterThan(1e-3);
  });

  it('is M itself when the probes span every direction, and drops a dependent probe', () => {
    const probes = Array.from({ length: B }, vector);
    const m = rebuilt(sketchOf([...probes, (probes[0] as Float64Array).map((x, b) => 2 * x - ((probes[1] as Float64Array)[b] as number))]));
    M.forEach((x, at) => expect(m[at]).toBeCloseTo(x, 9));
  });

  it('gives the preview cᵀMc on the span with a zero bound, and no bound off it', () => {
    const probes = [vector(), vector(), vector()];
    const sketch = sketchOf(probes);
    const op = curvatureOperator({ lowRank: sketch }, B);
    const [c0, c1] = [(probes[0] as Float64Array).map((x, b) => x - 0.5 * ((probes[2] as Float64Array)[b] as number)), (probes[1] as Float64Array)];
    const out = new Float64Array(3);
    op.groupForms(c0, c1, new Int32Array(B), 1, out);
    expect(out[0]).toBeCloseTo(dot(c0, times(M, c0)), 10);
    expect(out[1]).toBeCloseTo(2 * dot(c0, times(M, c1)), 10);
    expect(out[2]).toBeCloseTo(dot(c1, times(M, c1)), 10);
    expect(op.errorBound(c0)).toBe(0);
    expect(op.errorBound(vector())).toBe(Number.POSITIVE_INFINITY);
  });

  it('refuses probes without their columns', () => {
    expect(() => sketchedCurvature([vector()], [], B)).toThrow(/1 probes but 0 measured columns/);
  });
});

describe('probe cells', () => {
  /** A 28-layer Qwen3's directions: think rows, final norm, then norm/attention/ffn per layer. */
  const directions: EditDirection[] = [
    { key: 'embed.think', group: 'embed_think', coefficient: 'think-rows' },
    { key: 'final_norm', group: 'final_norm', coefficient: 'alpha-scale' },
    ...Array.from({ length: 28 }, (_, l) => (['norm', 'attention', 'ffn'] as const).map((group) => ({ key: `${group}@${l}`, group, coefficient: 'alpha-scale' as const }))).flat(),
  ];

  it('covers every direction once and keeps the α-free and α parts apart at any budget', () => {
    for (const budget of [2, 3, 5, 8, 16]) {
      const cells = probeCells(directions, budget);
      expect(cells.length).toBeLessThanOrEqual(budget);
      expect(cells.flat().sort((a, b) => a - b)).toEqual(directions.map((_, b) => b));
      for (const cell of cells) expect(new Set(cell.map((b) => (directions[b] as EditDirection).coefficient === 'alpha-scale')).size).toBe(1);
    }
    expect(probeCells(directions, 2)).toEqual([[0], directions.slice(1).map((_, i) => i + 1)]);
  });

  it('splits by group, then the widest layer group by layer range', () => {
    const cells = probeCells(directions, 6);
    const keys = cells.map((cell) => cell.map((b) => (directions[b] as EditDirection).key));
    expect(keys.slice(0, 2)).toEqual([['embed.think'], ['final_norm']]);
    expect(keys.filter((k) => k.every((key) => key.startsWith('attention@')))).toHaveLength(1);
    const norms = keys.filter((k) => k.every((key) => key.startsWith('norm@')));
    expect(norms.map((k) => k.length)).toEqual([14, 14]);
    expect(norms[0]).toEqual(Array.from({ length: 14 }, (_, l) => `norm@${l}`));
  });

  it('splits the whole α part by layer range when the groups do not fit apart', () => {
    const keys = probeCells(directions, 4).map((cell) => cell.map((b) => (directions[b] as EditDirection).key));
    expect(keys.map((k) => k.length)).toEqual([1, 22, 21, 42]); // 85 α directions: 43 + 42, then the 43 as 22 + 21
    expect(keys[0]).toEqual(['embed.think']);
    expect(keys[3]).toContain('final_norm');
  });

  it('refuses a budget below 2', () => {
    expect(() => probeCells(directions, 1)).toThrow(/at least 2 probes/);
  });
});
