import { describe, expect, it } from 'vitest';
import { defaultSteepness, followsTau, maskCurve, maskWeight, maskWeights, removedDirections } from './sigmoid-mask.ts';

describe('GSP sigmoid mask', () => {
  const tau = 0.03;
  const k = defaultSteepness(tau);

  it('is ≈0.01 at 0, exactly 0.5 at τ and ≈0.99 at 2τ with k = 4.6/τ', () => {
    expect(maskWeight(0, tau, k)).toBeCloseTo(0.00995, 4);
    expect(maskWeight(tau, tau, k)).toBe(0.5);
    expect(maskWeight(2 * tau, tau, k)).toBeCloseTo(0.99005, 4);
  });

  it('counts removed directions as Σ w_i', () => {
    const ratios = [1, 0.5, tau, 0];
    const expected = maskWeight(1, tau, k) + maskWeight(0.5, tau, k) + 0.5 + maskWeight(0, tau, k);
    expect(removedDirections(ratios, tau, k)).toBeCloseTo(expected, 12);
    expect(removedDirections(ratios, tau, k)).toBeCloseTo(2.51, 2);
    expect(Array.from(maskWeights(ratios, tau, k))).toHaveLength(4);
  });

  it('draws a monotone curve from the lower bound to 1', () => {
    const curve = maskCurve(tau, k, 1e-4, 50);
    expect(curve[0]?.ratio).toBeCloseTo(1e-4, 10);
    expect(curve.at(-1)?.ratio).toBeCloseTo(1, 10);
    const weights = curve.map((c) => c.weight);
    expect(weights).toEqual([...weights].sort((a, b) => a - b));
  });

  it('knows when k follows 4.6/τ', () => {
    expect(followsTau({ tau, steepness: k })).toBe(true);
    expect(followsTau({ tau, steepness: 10 })).toBe(false);
  });
});
