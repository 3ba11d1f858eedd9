import { describe, expect, it } from 'vitest';
import { DEFAULT_TAU, defaultSteepness, followsTau, maskWeight, sigmoidWeights } from './gsp-mask.ts';

describe('GSP sigmoid mask', () => {
  const tau = DEFAULT_TAU;
  const k = defaultSteepness(tau);

  it('is ≈0.01 at 0, exactly 0.5 at τ and ≈0.99 at 2τ with k = 4.6/τ', () => {
    expect(k).toBeCloseTo(153.333, 3);
    expect(maskWeight(0, tau, k)).toBeCloseTo(0.00995, 4);
    expect(maskWeight(tau, tau, k)).toBe(0.5);
    expect(maskWeight(2 * tau, tau, k)).toBeCloseTo(0.99005, 4);
  });

  it('weighs a spectrum by σ/σ₁, and protects nothing when σ₁ is 0', () => {
    const w = sigmoidWeights([2, 0.06, 0], tau, k);
    expect(Array.from(w)).toEqual([maskWeight(1, tau, k), 0.5, maskWeight(0, tau, k)]);
    expect(Array.from(sigmoidWeights([0, 0], tau, k))).toEqual([0, 0]);
  });

  it('defaults to τ = 0.03 and k = 4.6/τ', () => {
    const sigma = Float64Array.of(5, 1, 0.2, 0.15, 0.01);
    expect(Array.from(sigmoidWeights(sigma))).toEqual(Array.from(sigmoidWeights(sigma, tau, k)));
    const at = sigmoidWeights(sigma, 0.05, 92);
    sigmoidWeights(sigma, 0.05).forEach((w, i) => expect(w).toBeCloseTo(at[i] as number, 12));
  });

  it('knows when k follows 4.6/τ', () => {
    expect(followsTau({ tau, steepness: k })).toBe(true);
    expect(followsTau({ tau: 0.05, steepness: k })).toBe(false);
    expect(followsTau({ tau, steepness: 10 })).toBe(false);
  });
});
