import { describe, expect, it } from 'vitest';
import { matchStrength } from './matched-strength.ts';

/** A gain that curves like the demo's losses: steep first, then flattening. */
const curved = (s: number) => -1.8 * (1 - Math.exp(-2.2 * s)) - 0.05 * s * s;

describe('matchStrength', () => {
  it('finds the strength whose gain is within tolerance of the target, doubling past it first', async () => {
    const seen: number[] = [];
    const result = await matchStrength(async (s) => {
      seen.push(s);
      return curved(s);
    }, { target: -1.2, start: 0.1, max: 2, tolerance: 0.01 });
    expect(result.reached).toBe(true);
    expect(Math.abs(result.value + 1.2)).toBeLessThanOrEqual(0.012);
    expect(result.value).toBe(curved(result.strength));
    expect(seen.slice(0, 4)).toEqual([0.1, 0.2, 0.4, 0.8]);
    expect(result.measurements.map((m) => m.strength)).toEqual(seen);
  });

  it('converges on a bracket where plain regula falsi keeps one end (Illinois)', async () => {
    const convex = (s: number) => -Math.pow(s, 4);
    const result = await matchStrength(async (s) => convex(s), { target: -0.5, start: 1, max: 1, tolerance: 0.01, maxMeasurements: 12 });
    expect(result.reached).toBe(true);
    expect(result.strength).toBeCloseTo(Math.pow(0.5, 0.25), 2);
    expect(result.measurements.length).toBeLessThan(12);
  });

  it('returns the closest measurement, not reached, when the largest strength falls short', async () => {
    const result = await matchStrength(async (s) => -0.1 * s, { target: -1, start: 0.25, max: 1 });
    expect(result).toMatchObject({ reached: false, strength: 1, value: -0.1 });
    expect(result.measurements.map((m) => m.strength)).toEqual([0.25, 0.5, 1]);
  });

  it('stops at the measurement budget with the closest point', async () => {
    const result = await matchStrength(async (s) => curved(s), { target: -1.2, start: 0.01, max: 4, tolerance: 1e-9, maxMeasurements: 5 });
    expect(result.measurements).toHaveLength(5);
    expect(Math.abs(result.value + 1.2)).toBe(Math.min(...result.measurements.map((m) => Math.abs(m.value + 1.2))));
  });

  it('refuses a target that is not a gain', async () => {
    await expect(matchStrength(async () => 0, { target: 0.1, start: 0.1, max: 1 })).rejects.toThrow('target < 0');
  });
});
