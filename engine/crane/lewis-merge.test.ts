import { describe, expect, it } from 'vitest';
import { baselineEdit } from './baselines.ts';
import { lewisDensityOf, lewisDensitySchedule } from './lewis-schedule.ts';
import { referenceDensity, referenceLewisTies, referenceSchedule } from './testing/reference-lewis.ts';
import { uniformStream } from './tensor-random-stream.ts';

const settings = { method: 'lewis', lambda: 0.3, gamma: 0.3, epsilon: 0.8, defaultDensity: 0.5 } as const;

describe('LEWIS merge: TIES at each tensor\'s scheduled density', () => {
  const base = { 'model.layers.0.self_attn.q_proj': 1, 'model.layers.1.self_attn.q_proj': 1, 'model.layers.0.mlp.experts.0.up_proj': 2, 'model.layers.0.mlp.experts.1.up_proj': 2 };
  const target = { 'model.layers.0.self_attn.q_proj': 1.5, 'model.layers.1.self_attn.q_proj': 3, 'model.layers.0.mlp.experts.0.up_proj': 2.25, 'model.layers.0.mlp.experts.1.up_proj': 1 };
  const schedule = lewisDensitySchedule(new Map(Object.entries(base)), new Map(Object.entries(target)), settings.gamma, settings.epsilon);
  const edit = baselineEdit({ ...settings, densityOf: lewisDensityOf(schedule, settings.defaultDensity) });
  const plainSchedule = referenceSchedule(base, target, settings.gamma, settings.epsilon);

  it('equals the reference trim → elect sign → disjoint merge, θ_I + α·merged in float32, element for element', () => {
    const next = uniformStream(3, 'lewis-merge');
    for (const name of ['model.layers.0.self_attn.q_proj.weight', 'model.layers.1.self_attn.q_proj.weight', 'model.layers.0.mlp.experts.7.up_proj.weight',
      'model.layers.0.self_attn.q_proj.bias', 'model.embed_tokens.weight', 'model.layers.1.post_attention_layernorm.weight']) {
      const thetaI = Float32Array.from({ length: 48 }, () => next() - 0.5);
      const thetaT = thetaI.map((v) => v + 0.1 * (next() - 0.5));
      const density = referenceDensity(plainSchedule, settings.defaultDensity, name);
      const expected = referenceLewisTies(Array.from(thetaI), Array.from(thetaT), density, settings.lambda);
      expect(Array.from(edit(name, [6, 8], thetaI, thetaT).values), name).toEqual(expected);
    }
  });

  it('the scheduled densities differ per tensor, so the share of δ kept does too', () => {
    const thetaI = new Float32Array(100);
    const thetaT = Float32Array.from({ length: 100 }, (_, i) => (i + 1) / 100);
    const kept = (name: string) => edit(name, [100], thetaI, thetaT).values.filter((v) => v !== 0).length;
    // q_proj: |ΔI| 0.5, 2 → 0.2, 0.8 of its sum; up_proj experts: mean(0.25, 1) alone in layer 0 → 1.
    expect(kept('model.layers.0.mlp.experts.3.up_proj.weight')).toBe(80); // ε
    expect(kept('model.layers.0.self_attn.q_proj.weight')).toBe(30); // γ
    expect(kept('model.layers.1.self_attn.q_proj.weight')).toBe(67); // 0.3 + (0.6 / 0.8)·0.5 = 0.675
    expect(kept('lm_head.weight')).toBe(50);
  });

  it('keeps every entry tied with the k-th largest |δ| and zero δ stays zero, as the reference trim', () => {
    const thetaI = Float32Array.from([0, 0, 0, 0, 0]);
    const thetaT = Float32Array.from([0.5, -0.5, 0.5, 0.25, 0]);
    const name = 'model.embed_tokens.weight'; // the default density 0.5: k = 2, three tie at |δ| = 0.5
    expect(Array.from(edit(name, [5], thetaI, thetaT).values)).toEqual(referenceLewisTies(Array.from(thetaI), Array.from(thetaT), 0.5, 0.3));
    expect(Array.from(edit(name, [5], thetaI, thetaT).values).filter((v) => v !== 0)).toHaveLength(3);
  });
});
