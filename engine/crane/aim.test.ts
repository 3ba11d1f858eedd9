import { describe, expect, it } from 'vitest';
import { AimImportanceAccumulator, aimImportanceOf, aimScaleInPlace, isAimMethod } from './aim.ts';
import { baselineEdit } from './baselines.ts';
import { referenceAim } from './testing/reference-aim.ts';
import { uniformStream } from './tensor-random-stream.ts';

const f = (...v: number[]) => Float32Array.from(v);

describe('AIM importance', () => {
  it('averages each sequence\'s mean, so a long sequence weighs as much as a short one', () => {
    const acc = new AimImportanceAccumulator();
    acc.addSequence(new Map([['model.layers.0.mlp.down_proj', f(2, 0)], ['model.layers.0.self_attn.o_proj', f(1)]]));
    acc.addSequence(new Map([['model.layers.0.mlp.down_proj', f(4, 1)]]));
    const importance = acc.importance();
    expect(Array.from(importance.get('model.layers.0.mlp.down_proj') as Float64Array)).toEqual([3, 0.5]);
    // A module reached by one sequence only is averaged over that one (the reference's per-module count).
    expect(Array.from(importance.get('model.layers.0.self_attn.o_proj') as Float64Array)).toEqual([1]);
    expect(() => acc.addSequence(new Map([['model.layers.0.self_attn.o_proj', f(1, 2)]]))).toThrow(/o_proj: 2 input channels after 1/);
  });

  it('maps a Linear weight to its module vector; norms, biases, embeddings and unknown modules get none', () => {
    const vector = f(1, 2);
    const of = aimImportanceOf(new Map([['model.layers.0.self_attn.q_proj', vector], ['model.embed_tokens', vector], ['model.norm', vector]]));
    expect(of('model.layers.0.self_attn.q_proj.weight')).toBe(vector);
    expect(of('model.layers.0.self_attn.q_proj.bias')).toBeUndefined();
    expect(of('model.embed_tokens.weight')).toBeUndefined();
    expect(of('model.norm.weight')).toBeUndefined();
    expect(of('lm_head.weight')).toBeUndefined();
    expect(isAimMethod({ method: 'aim_ties' })).toBe(true);
    expect(isAimMethod({ method: 'ties' })).toBe(false);
  });

  it('scales Δ[:, j] by 1 − s_j(1 − ω); an all-zero or non-finite importance leaves Δ alone', () => {
    const delta = f(10, 10, 10, 1, 1, 1);
    aimScaleInPlace(delta, f(2, 0, 1), 0.4); // s = (1, 0, 0.5)
    expect(Array.from(delta).map((v) => +v.toFixed(6))).toEqual([4, 10, 7, 0.4, 1, 0.7]);
    for (const importance of [f(0, 0, 0), f(Number.NaN, 1, 1), f(Number.POSITIVE_INFINITY, 1, 1)]) {
      const untouched = f(1, 2, 3);
      aimScaleInPlace(untouched, importance, 0.4);
      expect(Array.from(untouched)).toEqual([1, 2, 3]);
    }
  });
});

describe('AIM-TA and AIM-TIES against an independent per-element formulation', () => {
  const rows = 5;
  const cols = 8;
  const next = uniformStream(7, 'aim');
  const thetaI = Float32Array.from({ length: rows * cols }, () => next() - 0.5);
  const thetaT = Float32Array.from(thetaI, (v) => v + (next() - 0.5) * 0.1);
  const importance = Float32Array.from({ length: cols }, () => next());
  const name = 'model.layers.0.mlp.down_proj.weight';

  const cases = [
    { method: 'aim' as const, lambda: 0.3, omega: 0.4 },
    { method: 'aim' as const, lambda: 1.2, omega: 0 },
    { method: 'aim_ties' as const, lambda: 0.3, omega: 0.4, density: 0.5 },
    { method: 'aim_ties' as const, lambda: 0.7, omega: 1, density: 0.2 },
    { method: 'aim_ties' as const, lambda: 0.3, omega: 0.4, density: 1 },
  ];
  for (const settings of cases) {
    it(`${JSON.stringify(settings)}`, () => {
      const got = baselineEdit({ ...settings, importance: () => importance })(name, [rows, cols], thetaI, thetaT).values;
      const want = referenceAim(thetaI, thetaT, cols, importance, settings);
      for (let i = 0; i < got.length; i++) expect(got[i]).toBeCloseTo(want[i] as number, 6);
    });
  }

  it('AIM-TIES keeps every entry tied with the k-th largest |τ| (the reference\'s ≥ threshold)', () => {
    const tI = f(0, 0, 0, 0);
    const tT = f(3, -3, 3, 1);
    const settings = { method: 'aim_ties' as const, lambda: 1, omega: 0.5, density: 0.5 };
    const got = baselineEdit({ ...settings, importance: () => f(1, 0, 1, 0) })('w.weight', [1, 4], tI, tT).values;
    expect(Array.from(got)).toEqual(referenceAim(tI, tT, 4, f(1, 0, 1, 0), settings));
    expect(Array.from(got)).toEqual([1.5, -3, 1.5, 0]);
  });

  it('a tensor without a vector, or not 2-D, is plain TA / TIES', () => {
    const settings = { method: 'aim_ties' as const, lambda: 0.5, omega: 0.4, density: 0.5 };
    const flat = baselineEdit({ ...settings, importance: () => importance })('w', [rows * cols], thetaI, thetaT).values;
    const none = baselineEdit({ ...settings, importance: () => undefined })(name, [rows, cols], thetaI, thetaT).values;
    const want = referenceAim(thetaI, thetaT, cols, undefined, settings);
    for (let i = 0; i < want.length; i++) {
      expect(flat[i]).toBeCloseTo(want[i] as number, 6);
      expect(none[i]).toBeCloseTo(want[i] as number, 6);
    }
  });
});
