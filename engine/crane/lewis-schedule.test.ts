import { describe, expect, it } from 'vitest';
import { lewisBucketOf, lewisDensityOf, lewisDensitySchedule } from './lewis-schedule.ts';
import { referenceDensity, referenceSchedule } from './testing/reference-lewis.ts';
import { uniformStream } from './tensor-random-stream.ts';

const q = (layer: number) => `model.layers.${layer}.self_attn.q_proj`;
const up = (layer: number) => `model.layers.${layer}.mlp.up_proj`;
const expert = (layer: number, k: number) => `model.layers.${layer}.mlp.experts.${k}.gate_proj`;
const map = (entries: Record<string, number>) => new Map(Object.entries(entries));

function expectMatchesReference(base: Record<string, number>, target: Record<string, number>, gamma: number, epsilon: number): Map<string, number> {
  const schedule = new Map(lewisDensitySchedule(map(base), map(target), gamma, epsilon));
  const expected = referenceSchedule(base, target, gamma, epsilon);
  expect([...schedule.keys()].sort()).toEqual(Object.keys(expected).sort());
  for (const [bucket, density] of schedule) expect(density).toBeCloseTo(expected[bucket] as number, 14);
  return schedule;
}

describe('LEWIS density schedule', () => {
  it('buckets by layer and projection, collapsing expert indices', () => {
    expect(lewisBucketOf('model.layers.12.self_attn.q_proj')).toBe('12|self_attn.q_proj');
    expect(lewisBucketOf('model.layers.3.mlp.experts.17.down_proj')).toBe('3|mlp.experts.down_proj');
    expect(lewisBucketOf('model.embed_tokens')).toBeNull();
    expect(lewisBucketOf('lm_head')).toBeNull();
  });

  it('maps the per-projection normalized |Δ| onto [γ, ε]: the smallest gets γ, the largest ε (first and last layers included)', () => {
    // q: Δ = 1, 2, 3 over layers 0..2 → 1/6, 2/6, 3/6; up: Δ = 4, 0, 4 → 0.5, 0, 0.5.
    const base = { [q(0)]: 1, [q(1)]: 1, [q(2)]: 1, [up(0)]: 5, [up(1)]: 5, [up(2)]: 5 };
    const target = { [q(0)]: 2, [q(1)]: 3, [q(2)]: 4, [up(0)]: 1, [up(1)]: 5, [up(2)]: 9 };
    const schedule = expectMatchesReference(base, target, 0.3, 0.8);
    expect(schedule.get('1|mlp.up_proj')).toBe(0.3);
    expect(schedule.get('2|self_attn.q_proj')).toBeCloseTo(0.8, 15);
    expect(schedule.get('2|mlp.up_proj')).toBeCloseTo(0.8, 15);
    expect(schedule.get('0|self_attn.q_proj')).toBeCloseTo(0.3 + (1 / 6) * (0.5 / 0.5), 15);
  });

  it('equal importances everywhere (all Δ = 0) give the midpoint (γ + ε)/2 in every bucket', () => {
    const same = { [q(0)]: 2, [q(1)]: 2, [up(0)]: 7 };
    const schedule = expectMatchesReference(same, same, 0.3, 0.8);
    for (const density of schedule.values()) expect(density).toBe(0.55);
  });

  it('equal normalized Δs across buckets (not zero) also give the midpoint', () => {
    const schedule = expectMatchesReference({ [q(0)]: 1, [q(1)]: 1 }, { [q(0)]: 3, [q(1)]: -1 }, 0.2, 0.6);
    expect([...schedule.values()]).toEqual([0.4, 0.4]);
  });

  it('a projection whose Δs are all zero sits at 0 before scaling (the floor γ), as the reference code does', () => {
    const base = { [q(0)]: 1, [q(1)]: 1, [up(0)]: 3, [up(1)]: 3 };
    const target = { [q(0)]: 2, [q(1)]: 4, [up(0)]: 3, [up(1)]: 3 };
    const schedule = expectMatchesReference(base, target, 0.3, 0.8);
    expect(schedule.get('0|mlp.up_proj')).toBe(0.3);
    expect(schedule.get('1|mlp.up_proj')).toBe(0.3);
    expect(schedule.get('1|self_attn.q_proj')).toBeCloseTo(0.8, 15);
  });

  it('zero importance in one model counts as a full |Δ|; γ = ε clamps every bucket to that density', () => {
    const schedule = expectMatchesReference({ [q(0)]: 0, [q(1)]: 0.5 }, { [q(0)]: 4, [q(1)]: 0.5 }, 0.7, 0.7);
    expect([...schedule.values()]).toEqual([0.7, 0.7]);
    const wide = expectMatchesReference({ [q(0)]: 0, [q(1)]: 0.5 }, { [q(0)]: 4, [q(1)]: 0.5 }, 0, 1);
    expect(wide.get('0|self_attn.q_proj')).toBe(1);
    expect(wide.get('1|self_attn.q_proj')).toBe(0);
  });

  it('MoE experts of one projection collapse to their mean |Δ|; modules only one file has are skipped', () => {
    const base = { [expert(0, 0)]: 1, [expert(0, 1)]: 1, [expert(1, 0)]: 1, [q(0)]: 1 };
    const target = { [expert(0, 0)]: 2, [expert(0, 1)]: 4, [expert(1, 0)]: 1.5, [expert(1, 1)]: 99, [q(3)]: 8 };
    const schedule = expectMatchesReference(base, target, 0.3, 0.8);
    expect([...schedule.keys()].sort()).toEqual(['0|mlp.experts.gate_proj', '1|mlp.experts.gate_proj']);
  });

  it('matches the reference formulation on random importances of a 6-layer, 4-projection model', () => {
    const next = uniformStream(7, 'lewis');
    const base: Record<string, number> = {};
    const target: Record<string, number> = {};
    for (let layer = 0; layer < 6; layer++) {
      for (const projection of ['self_attn.q_proj', 'self_attn.o_proj', 'mlp.up_proj', 'mlp.down_proj']) {
        base[`model.layers.${layer}.${projection}`] = 10 * next();
        target[`model.layers.${layer}.${projection}`] = 10 * next();
      }
    }
    expectMatchesReference(base, target, 0.3, 0.8);
  });

  it('refuses γ > ε, values outside [0, 1], no shared module and non-finite importances, naming the module', () => {
    const one = map({ [q(0)]: 1 });
    expect(() => lewisDensitySchedule(one, one, 0.9, 0.8)).toThrow(/0 ≤ γ ≤ ε ≤ 1/);
    expect(() => lewisDensitySchedule(one, one, -0.1, 0.8)).toThrow(/0 ≤ γ ≤ ε ≤ 1/);
    expect(() => lewisDensitySchedule(one, one, 0.3, 1.2)).toThrow(/0 ≤ γ ≤ ε ≤ 1/);
    expect(() => lewisDensitySchedule(one, map({ [q(1)]: 1 }), 0.3, 0.8)).toThrow(/share no/);
    expect(() => lewisDensitySchedule(map({ 'lm_head': 1 }), map({ 'lm_head': 2 }), 0.3, 0.8)).toThrow(/share no/);
    expect(() => lewisDensitySchedule(one, map({ [q(0)]: Number.NaN }), 0.3, 0.8)).toThrow(/fine-tuned importance of model\.layers\.0\.self_attn\.q_proj is NaN/);
  });
});

describe('LEWIS density lookup', () => {
  const schedule = lewisDensitySchedule(map({ [q(0)]: 1, [q(1)]: 1, [expert(0, 0)]: 0 }), map({ [q(0)]: 2, [q(1)]: 5, [expert(0, 0)]: 1 }), 0.3, 0.8);
  const plain = Object.fromEntries(schedule);
  const densityOf = lewisDensityOf(schedule, 0.5);

  it('gives a scheduled weight its bucket density and everything else the default, as make_density_lookup', () => {
    for (const name of [`${q(0)}.weight`, `${q(1)}.weight`, 'model.layers.0.mlp.experts.5.gate_proj.weight', `${q(0)}.bias`,
      'model.layers.7.self_attn.q_proj.weight', 'model.embed_tokens.weight', 'lm_head.weight', 'model.layers.0.input_layernorm.weight']) {
      expect(densityOf(name)).toBe(referenceDensity(plain, 0.5, name));
    }
    // q: Δ 1, 4 → 0.2, 0.8; the lone expert bucket: Δ 1 → 1. So q(0) is the floor, experts the ceiling.
    expect(densityOf(`${q(0)}.weight`)).toBe(0.3);
    expect(densityOf(`${q(1)}.weight`)).toBeCloseTo(0.3 + (0.6 / 0.8) * 0.5, 15);
    expect(densityOf('model.layers.0.mlp.experts.5.gate_proj.weight')).toBeCloseTo(0.8, 15);
    expect(densityOf(`${q(0)}.bias`)).toBe(0.5);
    expect(densityOf('lm_head.weight')).toBe(0.5);
  });

  it('refuses a default density outside [0, 1]', () => {
    expect(() => lewisDensityOf(schedule, 1.5)).toThrow(/default density 1\.5/);
  });
});
