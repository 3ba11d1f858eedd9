import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { f32Tensor, withTempDir, writeFixtureCheckpoint } from '../io/testing/fixtures.ts';
import { UsageError } from './command.ts';
import { assertOverridesMatch, assertOverridesMatchCheckpoint } from './override-keys.ts';

// Some tensors of a two-layer Qwen3 model and the head, as a checkpoint names them (shapes matter only for fused experts).
const TENSORS = [
  'model.embed_tokens.weight', 'model.norm.weight', 'lm_head.weight',
  ...[0, 1].flatMap((l) => [
    `model.layers.${l}.input_layernorm.weight`, `model.layers.${l}.self_attn.q_proj.weight`, `model.layers.${l}.self_attn.k_proj.weight`,
    `model.layers.${l}.mlp.up_proj.weight`, `model.layers.${l}.mlp.down_proj.weight`,
  ]),
].map((name) => ({ name, shape: [2, 2] }));

describe('--override keys against the checkpoint', () => {
  it('accepts every block a tensor looks up: a layer, every layer, a projection of a layer', () => {
    expect(() => assertOverridesMatch({ 'attention@1': 0.5, 'ffn@*': 0, 'ffn.up@0': 1, 'norm@*': 1 }, TENSORS, '/m')).not.toThrow();
  });

  it('refuses a layer past the last and an unknown group, naming them and the checkpoint', () => {
    const check = () => assertOverridesMatch({ 'attention@2': 0.5, 'atention@0': 0, 'ffn@1': 1 }, TENSORS, '/m');
    expect(check).toThrow(UsageError);
    expect(check).toThrow(/^--override attention@2, atention@0: no tensor of \/m has this block/);
  });

  it('checks a checkpoint folder by its tensor names (verify), naming the folder', () => withTempDir(async (root) => {
    const dir = await writeFixtureCheckpoint(join(root, 'instruct'), [f32Tensor('model.layers.0.self_attn.q_proj.weight', [2, 2], 1)]);
    await expect(assertOverridesMatchCheckpoint({ 'attention@0': 0.5 }, dir)).resolves.toBeUndefined();
    await expect(assertOverridesMatchCheckpoint({ 'attention@1': 0.5 }, dir)).rejects.toThrow(`--override attention@1: no tensor of ${dir} has this block`);
  }));

  it('offers a fused MoE checkpoint\'s experts as the merge edits them (expert.e@l), not the fused tensor\'s own name', () => withTempDir(async (root) => {
    // Two experts, inner size 2, hidden size 3, stored fused as transformers v5 saves them.
    const dir = await writeFixtureCheckpoint(join(root, 'instruct'), [
      f32Tensor('model.layers.1.mlp.experts.gate_up_proj', [2, 4, 3], 1),
      f32Tensor('model.layers.1.mlp.experts.down_proj', [2, 3, 2], 2),
    ]);
    await expect(assertOverridesMatchCheckpoint({ 'expert.1@1': 0, 'expert@1': 0.5, 'expert@*': 1 }, dir)).resolves.toBeUndefined();
    await expect(assertOverridesMatchCheckpoint({ 'expert.gate_up@1': 0.5, 'expert.2@1': 0 }, dir))
      .rejects.toThrow(`--override expert.gate_up@1, expert.2@1: no tensor of ${dir} has this block`);
  }));
});
