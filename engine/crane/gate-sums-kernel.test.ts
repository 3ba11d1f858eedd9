import { describe, expect, it } from 'vitest';
import { taylorSums, type TaylorSums } from './gate-sums-kernel.ts';

/** The gate's sums as the plain scalar loop: branches, Math.min/max, coordinates in order. */
function scalarSums(thetaI: Float32Array, delta: Float32Array, gradR: Float32Array, gradA: Float32Array): TaylorSums {
  let positive = 0, reasoning = 0, agent = 0, thetaSquared = 0, deltaSquared = 0, conflictMass = 0, totalMass = 0;
  for (let j = 0; j < delta.length; j++) {
    const d = delta[j] as number;
    const sR = -(gradR[j] as number) * d;
    const sA = -(gradA[j] as number) * d;
    positive += Math.max(0, Math.min(sR, sA));
    reasoning += sR;
    agent += sA;
    thetaSquared += (thetaI[j] as number) ** 2;
    deltaSquared += d * d;
    const mass = Math.abs(sR) + Math.abs(sA);
    totalMass += mass;
    if (sR * sA < 0) conflictMass += mass;
  }
  return { positive, reasoning, agent, thetaSquared, deltaSquared, conflictMass, totalMass };
}

function randomArrays(n: number, seed: number): [Float32Array, Float32Array, Float32Array, Float32Array] {
  let state = seed;
  const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32) - 0.5;
  // Some exact zeros and signed zeros among the values: the cases where ±0 handling could differ.
  const random = (scale: number) => Float32Array.from({ length: n }, () => {
    const x = next();
    return Math.abs(x) < 0.03 ? (x < 0 ? -0 : 0) : x * scale;
  });
  return [random(0.05), random(1e-3), random(1e-2), random(3e-2)];
}

describe('taylorSums', () => {
  it.each([0, 1, 2, 7, 65_536, 65_537, 200_001])('equals the scalar loop bit for bit over %i coordinates', (n) => {
    const arrays = randomArrays(n, n + 1);
    const got = taylorSums(...arrays);
    const want = scalarSums(...arrays);
    for (const key of Object.keys(want) as (keyof TaylorSums)[]) expect(Object.is(got[key], want[key]), `${key}: ${got[key]} vs ${want[key]}`).toBe(true);
  });

  it('hand-computed sums: agreement, conflict and a shared zero', () => {
    // δ = (1, 2, 0): s_R = (−1, 4, 0), s_A = (−3, −2, 0).
    const f = (...v: number[]) => Float32Array.from(v);
    const sums = taylorSums(f(1, 1, 2), f(1, 2, 0), f(1, -2, 5), f(3, 1, -5));
    expect(sums).toEqual({ positive: 0, reasoning: 3, agent: -5, thetaSquared: 6, deltaSquared: 5, conflictMass: 6, totalMass: 10 });
  });

  it('a NaN gradient makes the sums NaN, as the scalar loop does', () => {
    const arrays = randomArrays(9, 3);
    arrays[2][4] = Number.NaN;
    const got = taylorSums(...arrays);
    const want = scalarSums(...arrays);
    for (const key of Object.keys(want) as (keyof TaylorSums)[]) expect(Object.is(got[key], want[key]), key).toBe(true);
  });
});
