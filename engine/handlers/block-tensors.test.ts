import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { f32Tensor, withTempDir, writeFixtureCheckpoint } from '../io/testing/fixtures.ts';
import { blockTensors } from './block-tensors.ts';

// Layer 1 of an MoE model with two experts (inner size 2, hidden size 3) stored fused, as transformers v5 saves them.
const GATE_UP = 'model.layers.1.mlp.experts.gate_up_proj';
const DOWN = 'model.layers.1.mlp.experts.down_proj';
const Q = 'model.layers.1.self_attn.q_proj.weight';
const TENSORS = [f32Tensor(GATE_UP, [2, 4, 3], 1), f32Tensor(DOWN, [2, 3, 2], 2), f32Tensor(Q, [3, 3], 3)];

/** Each tensor's covered parts as name → [per-expert name, offset, length]. */
const covered = (found: Map<string, { tensor: { name: string }; offset: number; length: number }[]>) =>
  Object.fromEntries([...found].map(([name, parts]) => [name, parts.map((p) => [p.tensor.name, p.offset, p.length])]));

function withPair(body: (instruct: Checkpoint, thinking: Checkpoint) => void): Promise<void> {
  return withTempDir(async (root) => {
    const instruct = await Checkpoint.open(await writeFixtureCheckpoint(join(root, 'instruct'), TENSORS));
    const thinking = await Checkpoint.open(await writeFixtureCheckpoint(join(root, 'thinking'), TENSORS));
    try {
      body(instruct, thinking);
    } finally {
      await Promise.all([instruct.close(), thinking.close()]);
    }
  });
}

describe('blockTensors on a fused MoE checkpoint', () => {
  it('covers one expert\'s block with its slices of the fused tensors: gate and up rows, then down', () => withPair((instruct, thinking) => {
    expect(covered(blockTensors(instruct, thinking, { layer: 1, group: 'expert.1' }))).toEqual({
      [GATE_UP]: [['model.layers.1.mlp.experts.1.gate_proj.weight', 12, 6], ['model.layers.1.mlp.experts.1.up_proj.weight', 18, 6]],
      [DOWN]: [['model.layers.1.mlp.experts.1.down_proj.weight', 6, 6]],
    });
  }));

  it('covers the coarse expert block with the fused tensors whole, and leaves other groups as they were', () => withPair((instruct, thinking) => {
    expect(covered(blockTensors(instruct, thinking, { layer: 1, group: 'expert' }))).toEqual({ [GATE_UP]: [[GATE_UP, 0, 24]], [DOWN]: [[DOWN, 0, 12]] });
    expect(covered(blockTensors(instruct, thinking, { layer: 1, group: 'q' }))).toEqual({ [Q]: [[Q, 0, 9]] });
  }));

  it('finds no tensors for an expert the layer lacks or a layer the model lacks', () => withPair((instruct, thinking) => {
    expect(() => blockTensors(instruct, thinking, { layer: 1, group: 'expert.2' })).toThrow('no tensors in block expert.2 of layer 1');
    expect(() => blockTensors(instruct, thinking, { layer: 0, group: 'expert.1' })).toThrow('no tensors in block expert.1 of layer 0');
  }));
});
