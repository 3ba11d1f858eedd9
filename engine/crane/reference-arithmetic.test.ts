import { describe, expect, it } from 'vitest';
import { DEFAULT_CRANE_SETTINGS, defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { craneEdit, type CraneContext } from './crane-edit.ts';
import type { GspProjector } from './gsp-projector.ts';
import { emulateReferenceCrane, emulatedBf16 } from './testing/bf16-emulation.ts';
import { referenceThreshold } from './testing/reference-crane.ts';

const Q = 'model.layers.0.self_attn.q_proj.weight';
const noGate = (arith: ResolvedCraneSettings['arith'], alpha = 0.3): ResolvedCraneSettings => ({
  ...defaultResolvedSettings({ think: [], special: [] }), alpha, arith, stages: { threshold: true, gate: false, gsp: false },
});
const none: CraneContext = { gate: null, projector: () => undefined };
const bits = (values: ArrayLike<number>) => Array.from(new Uint32Array(Float32Array.from(values).buffer));
const edit = (settings: ResolvedCraneSettings, thetaI: number[], thetaT: number[], context = none, shape = [1, thetaI.length]) =>
  craneEdit(settings, context)(Q, shape, Float32Array.from(thetaI), Float32Array.from(thetaT)).values;

/** A deterministic spread of float32 values over many binades, both signs. */
function spread(n: number, seed: number): number[] {
  let state = seed;
  return Array.from({ length: n }, () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const unit = state / 2 ** 31;
    return Math.fround((unit - 0.5) * 2 ** Math.floor(unit * 12 - 8));
  });
}

describe('emulatedBf16 (the test oracle) rounds as PyTorch', () => {
  it('ties to even, subnormals, overflow and signed zero', () => {
    expect(emulatedBf16(1 + 2 ** -8)).toBe(1); // halfway, 1 is even
    expect(emulatedBf16(1 + 3 * 2 ** -8)).toBe(1 + 2 ** -6); // halfway, 1 + 2⁻⁶ is even
    expect(emulatedBf16(2 ** -133 * 1.5)).toBe(2 ** -132); // subnormal tie, to even
    expect(emulatedBf16(2 ** -133 * 0.5)).toBe(0); // half the smallest subnormal, to even (0)
    expect(emulatedBf16(3.4e38)).toBe(Infinity);
    expect(Object.is(emulatedBf16(-0), -0)).toBe(true);
  });
});

describe("arith 'reference': bf16 as crane_merge.py, bit for bit against the emulation", () => {
  // δ = bf16(3 − 2⁻⁷) = 3 (a tie, to even), θ_M = bf16(2⁻⁷ + 3) = 3 (a tie again);
  // δ = bf16(3 − 3·2⁻⁸) = 2.984375, θ_M = bf16(2.99609375) = 3; the last two θ_T are ties themselves.
  it('rounds δ and the sum at ties, and casts the inputs', () => {
    const thetaI = [2 ** -7, 3 * 2 ** -8, 1, 1];
    const thetaT = [3, 3, 1 + 2 ** -8, 1 + 3 * 2 ** -8];
    const settings = { ...noGate('reference', 1), stages: { threshold: false, gate: false, gsp: false } };
    const out = edit(settings, thetaI, thetaT);
    expect(bits(out)).toEqual(bits(emulateReferenceCrane(thetaI, thetaT, 4, { factor: 1, keepQuantile: 0.5, threshold: false })));
    expect(Array.from(out)).toEqual([3, 3, 1, 1 + 2 ** -6]);
  });

  it('equal magnitudes at the median are all dropped, as signed zeros of δ·0', () => {
    const thetaI = [-0, 0, 1, 1, 1, 1];
    const thetaT = [-0.001, 0.5, 1.5, 0.5, 1.25, 3];
    const out = edit(noGate('reference', 0.25), thetaI, thetaT);
    expect(bits(out)).toEqual(bits(emulateReferenceCrane(thetaI, thetaT, 6, { factor: 0.25, keepQuantile: 0.5, threshold: true })));
    expect(Object.is(out[0], -0)).toBe(true);
  });

  it('subnormal weights and deltas', () => {
    const thetaI = [1e-39, -3e-40, 2 ** -130, 7e-41, 0, 1e-38, -1e-39, 5e-40];
    const thetaT = [3e-39, 2e-40, -(2 ** -131), 9e-40, 2 ** -133, -1e-38, 1e-39, 5e-40];
    for (const alpha of [0.25, 1.75]) {
      const out = edit(noGate('reference', alpha), thetaI, thetaT);
      expect(bits(out)).toEqual(bits(emulateReferenceCrane(thetaI, thetaT, 8, { factor: alpha, keepQuantile: 0.5, threshold: true })));
    }
  });

  it('a spread of 512 values, keep quantile 0.5 and 0.25, S from the gate override', () => {
    const thetaI = spread(512, 7);
    const thetaT = thetaI.map((v, i) => Math.fround(v + (spread(512, 11)[i] as number) / 8));
    for (const keepQuantile of [0.5, 0.25]) {
      const settings = { ...noGate('reference', 0.25), keepQuantile, overrideScales: { 'attention@0': 1.37 } };
      const out = edit(settings, thetaI, thetaT, none, [32, 16]);
      expect(bits(out)).toEqual(bits(emulateReferenceCrane(thetaI, thetaT, 16, { factor: 0.25 * 1.37, keepQuantile, threshold: true })));
    }
  });

  it('projects in float32 and casts back to bf16', () => {
    const dIn = 8;
    const basis = Array.from({ length: dIn }, (_, j) => spread(2, 100 + j).map((v) => Math.fround(v * 4)));
    const projector: GspProjector = { dim: dIn, rank: 2, basis: Float32Array.from(basis.flat()), sigma: Float64Array.of(2, 0.05) };
    const context: CraneContext = { gate: null, projector: (key) => (key === 'layer_0_attn_input' ? projector : undefined) };
    const thetaI = spread(64, 3);
    const thetaT = spread(64, 5);
    const settings = { ...noGate('reference', 0.25), stages: { threshold: true, gate: false, gsp: true } };
    const out = edit(settings, thetaI, thetaT, context, [8, dIn]);
    const expected = emulateReferenceCrane(thetaI, thetaT, dIn, {
      factor: 0.25, keepQuantile: 0.5, threshold: true, projector: { basis, sigma: [2, 0.05], tau: settings.tau, steepness: settings.steepness },
    });
    expect(bits(out)).toEqual(bits(expected));
  });
});

describe("arith 'f32' (the default) is the float32 edit it always was", () => {
  const thetaI = spread(256, 13);
  const thetaT = spread(256, 17);

  it('is the default, and absent means f32', () => {
    expect(DEFAULT_CRANE_SETTINGS.arith).toBe('f32');
    expect(bits(edit(noGate(undefined), thetaI, thetaT))).toEqual(bits(edit(noGate('f32'), thetaI, thetaT)));
  });

  it('θ_M = fround(θ_I + fround(α·T(δ))) with δ in float32, and differs from the bf16 edit', () => {
    const delta = thetaT.map((t, i) => Math.fround(t - (thetaI[i] as number)));
    const expected = referenceThreshold(delta).map((d, i) => Math.fround((thetaI[i] as number) + Math.fround(0.3 * Math.fround(d))));
    const f32 = edit(noGate('f32'), thetaI, thetaT);
    expect(bits(f32)).toEqual(bits(expected));
    expect(bits(edit(noGate('reference'), thetaI, thetaT))).not.toEqual(bits(f32));
  });
});
