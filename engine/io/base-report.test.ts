import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from './checkpoint.ts';
import { comparePair, type PairReport } from './pair-report.ts';
import { f32Tensor, withTempDir, writeFixtureCheckpoint, type FixtureTensor } from './testing/fixtures.ts';

const CONFIG = { model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], hidden_size: 4, num_hidden_layers: 1 };
const PAIR = (seed: number): FixtureTensor[] => [
  f32Tensor('model.embed_tokens.weight', [5, 4], seed),
  f32Tensor('model.layers.0.self_attn.q_proj.weight', [4, 4], seed + 1),
  f32Tensor('model.layers.0.mlp.up_proj.weight', [8, 4], seed + 2),
];

async function withBase(tensors: FixtureTensor[], config: Record<string, unknown> = CONFIG): Promise<PairReport> {
  return withTempDir(async (root) => {
    const open = async (name: string, side: FixtureTensor[], sideConfig: Record<string, unknown>) =>
      Checkpoint.open(await writeFixtureCheckpoint(join(root, name), side, { config: sideConfig }));
    const checkpoints = [await open('instruct', PAIR(1), CONFIG), await open('thinking', PAIR(10), CONFIG), await open('base', tensors, config)] as const;
    try {
      return await comparePair(...checkpoints);
    } finally {
      await Promise.all(checkpoints.map((c) => c.close()));
    }
  });
}

const errors = (report: PairReport) => report.findings.filter((f) => f.severity === 'error');

describe('Base checkpoint in the pair report', () => {
  it('accepts a base with every tensor of the pair (extra tensors ignored) and reports the match', async () => {
    const report = await withBase([...PAIR(20), f32Tensor('model.extra.weight', [2], 3)]);
    expect(report.compatible).toBe(true);
    expect(report.base).toMatchObject({ matchedTensors: 3, missingTensors: [], shapeMismatches: [] });
    expect(report.base?.dir).toMatch(/base$/);
  });

  it('refuses a base that lacks a tensor of the pair, naming it', async () => {
    const report = await withBase(PAIR(20).filter((t) => !t.spec.name.includes('up_proj')));
    expect(report.compatible).toBe(false);
    expect(report.base?.missingTensors).toEqual(['model.layers.0.mlp.up_proj.weight']);
    expect(errors(report).map((f) => f.code)).toEqual(['base-tensor-missing']);
    expect(errors(report)[0]?.message).toMatch(/1 tensor of the pair is missing from Base .*base: model\.layers\.0\.mlp\.up_proj\.weight/);
  });

  it('refuses a base whose tensor shape or architecture differs', async () => {
    const reshaped = PAIR(20).map((t) => (t.spec.name.includes('q_proj') ? f32Tensor(t.spec.name, [2, 8], 4) : t));
    const report = await withBase(reshaped, { ...CONFIG, hidden_size: 8 });
    expect(report.base?.shapeMismatches).toEqual([{ name: 'model.layers.0.self_attn.q_proj.weight', base: '[2, 8]', pair: '[4, 4]' }]);
    expect(errors(report).map((f) => f.message)).toEqual([
      'config.json "hidden_size" differs: Instruct 4, Base 8',
      expect.stringMatching(/^1 tensor differs in shape between Base and the pair: model\.layers\.0\.self_attn\.q_proj\.weight \[2, 8\] vs \[4, 4\]/),
    ]);
  });

  it('leaves the report without a base section when no base is given', async () => {
    const report = await withTempDir(async (root) => {
      const a = await Checkpoint.open(await writeFixtureCheckpoint(join(root, 'i'), PAIR(1), { config: CONFIG }));
      const b = await Checkpoint.open(await writeFixtureCheckpoint(join(root, 't'), PAIR(2), { config: CONFIG }));
      try {
        return await comparePair(a, b);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
    expect(report.base).toBeUndefined();
    expect('base' in report).toBe(false);
  });
});
