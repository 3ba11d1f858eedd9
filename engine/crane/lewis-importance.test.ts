import { describe, expect, it } from 'vitest';
import { SquaredInputAccumulator, wandaImportance } from './lewis-importance.ts';
import { referenceWandaImportance } from './testing/reference-lewis.ts';
import { uniformStream } from './tensor-random-stream.ts';

describe('LEWIS importance (Wanda score per Linear)', () => {
  it('pools tokens across prompts and equals sqrt Σ W_ij² E[x_j²] of the reference, from raw activations', () => {
    const next = uniformStream(11, 'lewis-importance');
    const [rows, columns] = [3, 5];
    const weight = Array.from({ length: rows }, () => Array.from({ length: columns }, () => next() - 0.5));
    // Two prompts of different lengths: a mean of per-prompt means would differ from the pooled mean.
    const prompts = [4, 9].map((length) => Array.from({ length }, () => Array.from({ length: columns }, () => 4 * (next() - 0.5))));
    const accumulator = new SquaredInputAccumulator();
    for (const tokens of prompts) {
      const sums = Array.from({ length: columns }, (_, j) => tokens.reduce((s, x) => s + (x[j] as number) ** 2, 0));
      accumulator.add('model.layers.0.self_attn.q_proj', sums, tokens.length);
    }
    const meanSquares = accumulator.meanSquares().get('model.layers.0.self_attn.q_proj') as Float64Array;
    const flat = Float32Array.from(weight.flat());
    const roundedWeight = weight.map((row) => row.map((w) => Math.fround(w)));
    expect(wandaImportance(flat, [rows, columns], meanSquares)).toBeCloseTo(referenceWandaImportance(roundedWeight, prompts.flat()), 12);
  });

  it('leaves out modules that read no token, as the reference file does', () => {
    const accumulator = new SquaredInputAccumulator();
    accumulator.add('model.layers.0.mlp.experts.4.up_proj', [0, 0], 0);
    accumulator.add('model.layers.0.mlp.experts.5.up_proj', [2, 8], 2);
    expect([...accumulator.meanSquares()]).toEqual([['model.layers.0.mlp.experts.5.up_proj', Float64Array.from([1, 4])]]);
  });

  it('refuses mismatched widths and shapes, naming the module', () => {
    const accumulator = new SquaredInputAccumulator();
    accumulator.add('model.layers.1.mlp.down_proj', [1, 2, 3], 1);
    expect(() => accumulator.add('model.layers.1.mlp.down_proj', [1, 2], 1)).toThrow(/model\.layers\.1\.mlp\.down_proj: 2 input channels, earlier batches had 3/);
    expect(() => accumulator.add('model.layers.1.mlp.down_proj', [1, 2, 3], 1.5)).toThrow(/token count 1\.5/);
    expect(() => wandaImportance(new Float32Array(6), [2, 3], [1, 1])).toThrow(/2 input statistics for a weight with 3 input channels/);
    expect(() => wandaImportance(new Float32Array(6), [6], [1])).toThrow(/2-D Linear weight/);
  });
});
