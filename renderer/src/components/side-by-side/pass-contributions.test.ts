import { describe, expect, it } from 'vitest';
import type { BlockPasses } from '../../store/side-by-side-slice.ts';
import { largestLoss, passRows } from './pass-contributions.ts';

const part = (pass: number, lossReasoning: number, lossAgent: number) => ({ pass, lossReasoning, lossAgent, gradNormReasoning: 1, gradNormAgent: 1 });

/** An ffn block whose gate_proj edit lowers L_R in pass 1 but raises it in pass 2. */
const VIEW: BlockPasses = {
  block: { layer: 3, group: 'ffn' },
  passes: 2,
  tensors: [
    { name: 'model.layers.3.mlp.gate_proj.weight', passes: [part(0, -0.03, 0.003), part(1, 0.01, 0.002)] },
    { name: 'model.layers.3.mlp.down_proj.weight', passes: [part(0, -0.01, -0.001), part(1, -0.02, -0.004)] },
  ],
};

describe('passRows', () => {
  it('gives each tensor its per-pass ΔL, the share of |ΔL_R| per pass, and whether its passes pull apart', () => {
    const [gate, down, block] = passRows(VIEW);
    expect(gate?.label).toBe('mlp.gate_proj');
    expect(gate?.passes).toEqual([{ reasoning: -0.03, agent: 0.003 }, { reasoning: 0.01, agent: 0.002 }]);
    expect(gate?.reasoningShare[0]).toBeCloseTo(0.75, 12);
    expect(gate?.disagrees).toEqual({ reasoning: true, agent: false });
    expect(down?.disagrees).toEqual({ reasoning: false, agent: false });
    expect(down?.reasoningShare[1]).toBeCloseTo(2 / 3, 12);
    // the whole block: the tensors summed pass by pass
    expect(block?.label).toBe('whole block');
    expect(block?.passes[0]?.reasoning).toBeCloseTo(-0.04, 12);
    expect(block?.passes[1]?.reasoning).toBeCloseTo(-0.01, 12);
    expect(block?.passes[0]?.agent).toBeCloseTo(0.002, 12);
    expect(block?.passes[1]?.agent).toBeCloseTo(-0.002, 12);
    expect(block?.disagrees).toEqual({ reasoning: false, agent: true });
  });

  it('adds no block row for a block of one tensor, and scales bars by the largest |ΔL|', () => {
    const one = { ...VIEW, tensors: VIEW.tensors.slice(0, 1) };
    expect(passRows(one).map((r) => r.label)).toEqual(['mlp.gate_proj']);
    expect(largestLoss(passRows(VIEW))).toBeCloseTo(0.04, 12);
    expect(largestLoss(passRows({ ...VIEW, tensors: [] }))).toBe(1);
  });
});
