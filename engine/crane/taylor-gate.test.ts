import { describe, expect, it } from 'vitest';
import { blockScale, overrideScale } from '../protocol/block-scale.ts';
import { EMPTY_SUMS, GateAccumulator, gateSums } from './gate-accumulator.ts';
import { computeGateTable, DENOMINATOR_FLOOR, resolveScale, type GateTable } from './gate-scales.ts';
import { classifyTensor } from './tensor-classification.ts';

const f = (...v: number[]) => Float32Array.from(v);
const feed = (acc: GateAccumulator, name: string, thetaI: number[], delta: number[], gradR: number[], gradA: number[]) =>
  acc.add(classifyTensor(name), { thetaI: f(...thetaI), delta: f(...delta), gradR: f(...gradR), gradA: f(...gradA) });

/**
 * Layer 0: ffn.gate θ=[3,4] δ=[1,2] g_R=[−1,−1] g_A=[−2,1] → s_R=[1,2], s_A=[2,−2], p=[1,0]:
 *          Σp=1, ‖θ‖=5, S_raw=0.2 (the reference).
 *          attention.q θ=[2] δ=[1] g_R=[−3] g_A=[−1] → s=(3,1), p=1, S_raw=0.5 → S=2.5.
 *          norm θ=[1] δ=[1] g_R=[1] g_A=[−1] → s=(−1,1), p=0 → S=0.
 * Layer 1: ffn θ=[1] δ=[1] g=[1],[1] → p=0: the reference has S_raw=0 → denominator 1e-12.
 *          attention θ=[1] δ=[1] g=[−1],[−1] → p=1, S_raw=1 → S=1/1e-12.
 */
function handTable(): GateTable {
  const acc = new GateAccumulator();
  feed(acc, 'model.layers.0.mlp.gate_proj.weight', [3, 4], [1, 2], [-1, -1], [-2, 1]);
  feed(acc, 'model.layers.0.self_attn.q_proj.weight', [2], [1], [-3], [-1]);
  feed(acc, 'model.layers.0.input_layernorm.weight', [1], [1], [1], [-1]);
  feed(acc, 'model.layers.1.mlp.up_proj.weight', [1], [1], [1], [1]);
  feed(acc, 'model.layers.1.self_attn.k_proj.weight', [1], [1], [-1], [-1]);
  return computeGateTable(acc.blocks(), 'ffn');
}

const scaleOf = (table: GateTable, key: string) => table.scores.get(key)?.scale;

describe('Conservative Taylor Gate sums', () => {
  it('computes Σp, Σs_R, Σs_A, Σθ², Σδ² and the conflict mass by hand', () => {
    const sums = gateSums({ thetaI: f(3, 4), delta: f(1, 2), gradR: f(-1, -1), gradA: f(-2, 1) });
    expect(sums).toEqual({ count: 2, positive: 1, reasoning: 3, agent: 0, thetaSquared: 25, deltaSquared: 5, conflictMass: 4, totalMass: 7 });
  });

  it('is additive over slices of one tensor', () => {
    const whole = new GateAccumulator();
    feed(whole, 'model.layers.0.mlp.gate_proj.weight', [3, 4, 1], [1, 2, -1], [-1, -1, 2], [-2, 1, 3]);
    const sliced = new GateAccumulator();
    feed(sliced, 'model.layers.0.mlp.gate_proj.weight', [3], [1], [-1], [-2]);
    feed(sliced, 'model.layers.0.mlp.gate_proj.weight', [4, 1], [2, -1], [-1, 2], [1, 3]);
    expect(sliced.blocks()).toEqual(whole.blocks());
  });

  it('refuses tensors outside the layers and misaligned inputs', () => {
    const acc = new GateAccumulator();
    expect(() => feed(acc, 'model.embed_tokens.weight', [1], [1], [1], [1])).toThrow(/outside the decoder layers/);
    expect(() => feed(acc, 'model.layers.0.mlp.up_proj.weight', [1, 2], [1], [1], [1])).toThrow(/differ in length/);
  });
});

describe('S_CTG normalisation', () => {
  const table = handTable();

  it('S_raw = Σp/‖θ_I‖ and S = S_raw/S_raw(ref) per layer; ref is exactly 1', () => {
    expect(table.scores.get('ffn@0')?.sRaw).toBeCloseTo(0.2, 15);
    expect(scaleOf(table, 'ffn@0')).toBe(1);
    expect(scaleOf(table, 'attention@0')).toBeCloseTo(2.5, 12); // above 1 is legal: no clipping
  });

  it('Σp = 0 gives S = 0 (the block is dropped)', () => {
    expect(scaleOf(table, 'norm@0')).toBe(0);
  });

  it('a reference with Σp = 0 is floored at 1e-12 and is still exactly 1 itself', () => {
    expect(scaleOf(table, 'ffn@1')).toBe(1);
    expect(scaleOf(table, 'attention@1')).toBeCloseTo(1 / DENOMINATOR_FLOOR, 0);
  });

  it('global values pool Σp and Σθ² over layers before dividing', () => {
    // attention: Σp = 2, Σθ² = 5; ffn: Σp = 1, Σθ² = 26.
    expect(scaleOf(table, 'attention@*')).toBeCloseTo((2 / Math.sqrt(5)) / (1 / Math.sqrt(26)), 12);
    expect(scaleOf(table, 'ffn@*')).toBe(1);
    expect(scaleOf(table, 'norm@*')).toBe(0);
  });

  it('keeps the UI quantities: conflict share and norms', () => {
    const ffn = table.scores.get('ffn@0');
    expect(ffn?.conflictShare).toBeCloseTo(4 / 7, 15);
    expect(ffn?.thetaNorm).toBe(5);
    expect(ffn?.deltaNorm).toBeCloseTo(Math.sqrt(5), 15);
  });

  it('fine blocks are normalised by the coarse reference block', () => {
    expect(scaleOf(table, 'attention.q@0')).toBeCloseTo(2.5, 12);
    expect(scaleOf(table, 'ffn.gate@0')).toBe(1); // the only ffn tensor of layer 0: 0.2 / 0.2
  });

  it('a layer with no reference block at all is normalised by the global reference', () => {
    const acc = new GateAccumulator();
    feed(acc, 'model.layers.0.mlp.experts.0.gate_proj.weight', [3, 4], [1, 1], [-1, -1], [-1, -1]); // Σp = 2, S_raw = 0.4
    feed(acc, 'model.layers.1.self_attn.q_proj.weight', [1], [2], [-1], [-1]); // Σp = 2, S_raw = 2; no experts in layer 1
    const moe = computeGateTable(acc.blocks(), 'expert');
    expect(scaleOf(moe, 'attention@1')).toBeCloseTo(2 / 0.4, 12);
  });
});

describe('resolveScale', () => {
  const table = handTable();
  const coarse = { granularity: 'coarse' as const, overrideScales: {} };
  const resolve = (name: string, t: GateTable | null = table, options: Parameters<typeof resolveScale>[2] = coarse) =>
    resolveScale(classifyTensor(name), t, options);

  it('uses the layer block when scored, else the global group value', () => {
    expect(resolve('model.layers.0.self_attn.v_proj.weight')).toEqual({ value: scaleOf(table, 'attention@0'), source: 'layer', key: 'attention@0' });
    expect(resolve('model.layers.9.self_attn.v_proj.weight')).toEqual({ value: scaleOf(table, 'attention@*'), source: 'global', key: 'attention@*' });
  });

  it('gives the final norm the global norm value', () => {
    expect(resolve('model.norm.weight')).toEqual({ value: 0, source: 'global', key: 'norm@*' });
  });

  it('gives never-scored tensors S = 1', () => {
    expect(resolve('model.rotary_emb.inv_freq')).toEqual({ value: 1, source: 'unscored', key: null });
  });

  it('fine mode reads the projection block, falling back to the group', () => {
    const fine = { granularity: 'fine' as const, overrideScales: {} };
    expect(resolve('model.layers.0.self_attn.q_proj.weight', table, fine).key).toBe('attention.q@0');
    expect(resolve('model.layers.0.self_attn.o_proj.weight', table, fine).key).toBe('attention@0');
  });

  it('overrides win, fine before coarse, even with the gate off; gate off is S = 1', () => {
    const overrideScales = { 'attention.q@0': 0.7, 'attention@0': 0.2 };
    expect(resolve('model.layers.0.self_attn.q_proj.weight', table, { granularity: 'coarse', overrideScales }).value).toBe(0.7);
    expect(resolve('model.layers.0.self_attn.k_proj.weight', null, { granularity: 'coarse', overrideScales })).toEqual({ value: 0.2, source: 'override', key: 'attention@0' });
    expect(resolve('model.layers.0.self_attn.k_proj.weight', null)).toEqual({ value: 1, source: 'disabled', key: null });
  });

  it('resolves S by the protocol\'s rule for UI overrides (protocol/block-scale.ts), gate on and off', () => {
    // attention@0: S_raw 2/1 over ffn@0's 4/1 → S = 0.5.
    const sums = (positive: number) => ({ ...EMPTY_SUMS, count: 1, positive, thetaSquared: 1 });
    const scored = computeGateTable([
      { id: { group: 'attention', block: null, layer: 0 }, sums: sums(2) },
      { id: { group: 'ffn', block: null, layer: 0 }, sums: sums(4) },
    ], 'ffn');
    const q = classifyTensor('model.layers.0.self_attn.q_proj.weight');
    const cases = [
      { override: undefined, gateOn: 0.5, gateOff: 1 },
      { override: { gate: 1.5, locked: false }, gateOn: 1.5, gateOff: 1.5 },
      { override: { gate: 1.5, locked: true }, gateOn: 0, gateOff: 0 },
      { override: { gate: null, locked: false }, gateOn: 0.5, gateOff: 1 },
    ];
    for (const { override, gateOn, gateOff } of cases) {
      const scale = override === undefined ? undefined : overrideScale(override);
      const overrideScales: Record<string, number> = scale === undefined ? {} : { 'attention@0': scale };
      expect(resolveScale(q, scored, { granularity: 'coarse', overrideScales }).value).toBe(gateOn);
      expect(resolveScale(q, null, { granularity: 'coarse', overrideScales }).value).toBe(gateOff);
      expect([gateOn, gateOff]).toEqual([blockScale(true, 0.5, scale), blockScale(false, 0.5, scale)]);
    }
  });
});
