import { describe, expect, it } from 'vitest';
import { baselineEdit, dareDrop, tiesTrim } from './baselines.ts';
import { baselineSlerpRows } from './slerp.ts';
import { uniformStream } from './tensor-random-stream.ts';

const f = (...v: number[]) => Float32Array.from(v);

describe('baselines', () => {
  const thetaI = f(1, 2, 3, 4);
  const thetaT = f(2, 0, 3, 8); // δ = (1, −2, 0, 4)

  it('Task Arithmetic: θ_I + λδ', () => {
    const { values } = baselineEdit({ method: 'task_arithmetic', lambda: 0.5 })('x', [4], thetaI, thetaT);
    expect(Array.from(values)).toEqual([1.5, 1, 3, 6]);
  });

  it('Task Arithmetic rounds as δ, λ·δ and θ_I + λ·δ stored as float32 one after another (float64 λ), not as one float64 expression', () => {
    const n = 100_000;
    const i = Float32Array.from({ length: n }, (_, k) => Math.sin(k) * 2 ** ((k % 40) - 20));
    const t = Float32Array.from(i, (v, k) => v + Math.cos(k) * 2 ** ((k % 23) - 30));
    const lambda = 0.3;
    const delta = Float32Array.from(t, (v, k) => v - (i[k] as number));
    const scaled = Float32Array.from(delta, (d) => lambda * d);
    const expected = Float32Array.from(scaled, (m, k) => (i[k] as number) + m);
    const { values } = baselineEdit({ method: 'task_arithmetic', lambda })('x', [n], i, t);
    expect(Buffer.from(values.buffer).equals(Buffer.from(expected.buffer))).toBe(true);
    // The float64 expression rounds differently somewhere in these values: the test tells the two apart.
    expect(Buffer.from(Float32Array.from(i, (v, k) => v + lambda * ((t[k] as number) - v)).buffer).equals(Buffer.from(expected.buffer))).toBe(false);
  });

  it('gives the same values with the inputs handed over, and writes no input without', () => {
    for (const settings of [{ method: 'task_arithmetic', lambda: 0.5 }, { method: 'ties', lambda: 0.5, density: 0.5 }, { method: 'dare', lambda: 0.5, dropProbability: 0.5, seed: 3 }] as const) {
      const [i, t] = [Float32Array.from(thetaI), Float32Array.from(thetaT)];
      const kept = baselineEdit(settings)('x', [4], i, t).values;
      expect([...i, ...t]).toEqual([...thetaI, ...thetaT]);
      expect([...baselineEdit(settings)('x', [4], i, t, true).values]).toEqual([...kept]);
    }
  });

  it('TIES: keeps the top density fraction of |δ|, no rescale', () => {
    expect(Array.from(tiesTrim(f(1, -2, 0, 4), 0.5))).toEqual([0, -2, 0, 4]);
    expect(Array.from(tiesTrim(f(1, -2, 0, 4), 0.25))).toEqual([0, 0, 0, 4]);
    expect(Array.from(tiesTrim(f(1, -2, 0, 4), 1))).toEqual([1, -2, 0, 4]);
    expect(Array.from(tiesTrim(f(1, -2, 0, 4), 0))).toEqual([0, 0, 0, 0]);
    // Ties with the k-th largest magnitude are kept: k = 2 of (3, −3, 3, 1).
    expect(Array.from(tiesTrim(f(3, -3, 3, 1), 0.5))).toEqual([3, -3, 3, 0]);
    const { values } = baselineEdit({ method: 'ties', lambda: 0.5, density: 0.5 })('x', [4], thetaI, thetaT);
    expect(Array.from(values)).toEqual([1, 1, 3, 6]);
  });

  it('TIES keeps half of a large random tensor at density 0.5', () => {
    const next = uniformStream(1, 'ties');
    const delta = Float32Array.from({ length: 1000 }, () => next() - 0.5);
    expect(tiesTrim(delta, 0.5).filter((v) => v !== 0).length).toBe(500);
  });

  it('DARE: same seed and name give the same mask; survivors are rescaled by 1/(1−p)', () => {
    const delta = Float32Array.from({ length: 2000 }, (_, i) => (i % 7) + 1);
    const a = dareDrop(delta, 0.3, 42, 'model.layers.0.mlp.up_proj.weight');
    const b = dareDrop(delta, 0.3, 42, 'model.layers.0.mlp.up_proj.weight');
    const otherSeed = dareDrop(delta, 0.3, 43, 'model.layers.0.mlp.up_proj.weight');
    const otherName = dareDrop(delta, 0.3, 42, 'model.layers.1.mlp.up_proj.weight');
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(Array.from(a)).not.toEqual(Array.from(otherSeed));
    expect(Array.from(a)).not.toEqual(Array.from(otherName));
    const dropped = a.filter((v) => v === 0).length / a.length;
    expect(dropped).toBeGreaterThan(0.25);
    expect(dropped).toBeLessThan(0.35);
    a.forEach((v, i) => v !== 0 && expect(v).toBeCloseTo((delta[i] as number) / 0.7, 5));
  });

  it('the per-tensor stream is uniform in [0, 1)', () => {
    const next = uniformStream(0, '');
    let sum = 0;
    for (let i = 0; i < 10000; i++) {
      const u = next();
      expect(u >= 0 && u < 1).toBe(true);
      sum += u;
    }
    expect(sum / 10000).toBeCloseTo(0.5, 1);
  });

  it('SLERP per row: rows are the first dimension, endpoints exact', () => {
    const a = f(1, 0, 2, 0);
    const b = f(0, 1, 2, 0.001);
    const mid = baselineSlerpRows(a, b, [2, 2], 0.5);
    expect(mid[0]).toBeCloseTo(Math.SQRT1_2, 6); // row 0: a right angle, on the arc
    expect(mid[3]).toBeCloseTo(0.0005, 7); // row 1: nearly parallel, linear
    expect(Array.from(baselineSlerpRows(a, b, [2, 2], 1))).toEqual(Array.from(b).map((v) => Math.fround(v)));
    // A 1-D tensor is one row.
    const vec = baselineSlerpRows(f(1, 0), f(0, 1), [2], 0.5);
    expect(vec[0]).toBeCloseTo(Math.SQRT1_2, 6);
  });
});
