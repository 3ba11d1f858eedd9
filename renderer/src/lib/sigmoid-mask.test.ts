import { describe, expect, it } from 'vitest';
import { defaultSteepness, maskWeight } from '../protocol.ts';
import { removedDirections } from './sigmoid-mask.ts';

describe('GSP mask summary', () => {
  const tau = 0.03;
  const k = defaultSteepness(tau);

  it('counts removed directions as Σ w_i', () => {
    const ratios = [1, 0.5, tau, 0];
    const expected = maskWeight(1, tau, k) + maskWeight(0.5, tau, k) + 0.5 + maskWeight(0, tau, k);
    expect(removedDirections(ratios, tau, k)).toBeCloseTo(expected, 12);
    expect(removedDirections(ratios, tau, k)).toBeCloseTo(2.51, 2);
  });
});
