import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { rainQpTerms, solveRainQp, type BoxQp } from './rain-qp.ts';
import { bruteForceBoxQp } from './testing/reference-rain.ts';

function problem(n: number, hessian: number[], linear: number[], overrides: Partial<BoxQp> = {}): BoxQp {
  return { n, hessian: Float64Array.from(hessian), linear: Float64Array.from(linear), prior: new Float64Array(n).fill(1), l2Prior: 0, l1: 0, lo: 0, hi: 1.5, ...overrides };
}

/** A random symmetric positive-definite n×n matrix M Mᵀ + I with visible off-diagonals. */
function randomSpd(random: SeededRandom, n: number): number[] {
  const m = Array.from({ length: n * n }, () => random.normal());
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let sum = i === j ? 1 : 0;
      for (let k = 0; k < n; k++) sum += (m[i * n + k] ?? 0) * (m[j * n + k] ?? 0);
      out.push(sum);
    }
  }
  return out;
}

describe('RAIN α QP', () => {
  it('builds H and b per head from the two-pass statistics as the align_leak variant does', () => {
    const { hessian, linear } = rainQpTerms(
      [{ alignmentGain: 2, leakGain: 1, leakAfter: 3 }, { alignmentGain: -1, leakGain: -4, leakAfter: 0 }],
      { samples: 10, hLambda: 1, hMu: 0.5, rhoDu: 0.5 },
    );
    expect(Array.from(hessian)).toEqual([10 + 1.5 + 1e-6, 0, 0, 10 + 1e-6]);
    expect(Array.from(linear)).toEqual([2 - 0.5, -1 + 2]);
  });

  it('diagonal H: each α is clip(soft(b + λ·prior, l1) / (h + λ + 1e-6), lo, hi), per element', () => {
    const h = [4, 0.5, 2, 1e-3];
    const b = [3, 5, -1, 0.01];
    const qp = problem(4, [4, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1e-3], b, { l2Prior: 0.1, l1: 0.2, prior: Float64Array.of(1, 1, 0.5, 2) });
    const alpha = solveRainQp(qp);
    for (let i = 0; i < 4; i++) {
      const bEff = (b[i] ?? 0) + 0.1 * (qp.prior[i] ?? 0);
      const soft = Math.sign(bEff) * Math.max(Math.abs(bEff) - 0.2, 0);
      const expected = Math.min(Math.max(soft / ((h[i] ?? 0) + 0.1 + 1e-6), 0), 1.5);
      expect(alpha[i]).toBeCloseTo(expected, 14);
    }
    // the box binds from both sides in this case
    expect(Array.from(alpha).some((v) => v === 0)).toBe(true);
    expect(Array.from(alpha).some((v) => v === 1.5)).toBe(true);
  });

  it.each([2, 3, 4])('general %i×%i H: equals the brute-force active-set minimiser', (n) => {
    for (let seed = 0; seed < 6; seed++) {
      const random = new SeededRandom(100 * n + seed);
      const hessian = randomSpd(random, n);
      const linear = Array.from({ length: n }, () => 3 * random.normal());
      const l1 = seed % 2 === 0 ? 0 : 0.7;
      const lo = seed % 3 === 0 ? -0.5 : 0;
      const alpha = solveRainQp(problem(n, hessian, linear, { l1, lo, hi: 1.5, prior: new Float64Array(n) }));
      const expected = bruteForceBoxQp(Array.from({ length: n }, (_, i) => hessian.slice(i * n, (i + 1) * n)), linear, l1, lo, 1.5);
      alpha.forEach((v, i) => expect(v).toBeCloseTo(expected[i] ?? NaN, 9));
    }
  });

  it('a negative diagonal is lifted to the 1e-6 floor before solving, as the reference does', () => {
    // h = -2 → lifted by 2·1e-6 − (−2): curvature 2e-6, plus the shortcut's 1e-6 jitter
    const alpha = solveRainQp(problem(1, [-2], [1e-6], { hi: 10 }));
    expect(alpha[0]).toBeCloseTo(1e-6 / 3e-6, 9);
  });

  it('refuses an empty box, negative penalties and mismatched sizes', () => {
    expect(() => solveRainQp(problem(1, [1], [1], { lo: 2, hi: 1 }))).toThrow(/box is empty/);
    expect(() => solveRainQp(problem(1, [1], [1], { l1: -1 }))).toThrow(/penalties must be ≥ 0/);
    expect(() => solveRainQp(problem(2, [1], [1, 2]))).toThrow(/sizes disagree/);
  });
});
