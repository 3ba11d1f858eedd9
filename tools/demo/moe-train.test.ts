/**
 * demo:train --pair moe at smoke scale writes a Qwen3-MoE pair laid out like the dense demo:
 * per-expert tensors and a router in every layer, the base kept, fine-tunes that moved the
 * experts and the router, and the expert usage of each phase in the training report.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { demoPaths } from '../../engine/demo/demo-layout.ts';
import { withTempDir } from '../../engine/io/testing/fixtures.ts';
import { Checkpoint } from '../../engine/io/checkpoint.ts';

describe('demo:train --pair moe', () => {
  it('writes a Qwen3-MoE base, Instruct and Thinking with per-expert tensors, and reports expert usage', async () => {
    await withTempDir(async (root) => {
      execFileSync(process.execPath, ['--import', 'tsx', 'tools/demo/train.ts', '--pair', 'moe', '--out', root, '--scale', '0.002'], { stdio: 'pipe', env: { ...process.env, CRANE_BACKEND: 'wasm' } });
      const paths = demoPaths(root);
      const [base, instruct, thinking] = await Promise.all([Checkpoint.open(paths.base), Checkpoint.open(paths.instruct), Checkpoint.open(paths.thinking)]);
      try {
        expect(instruct.config).toMatchObject({ architectures: ['Qwen3MoeForCausalLM'], num_experts: 8, num_experts_per_tok: 2, norm_topk_prob: true });
        expect(instruct.tensors.has('model.layers.3.mlp.experts.7.down_proj.weight')).toBe(true);
        expect(instruct.tensors.has('model.layers.0.mlp.up_proj.weight')).toBe(false);
        for (const name of ['model.layers.0.mlp.gate.weight', 'model.layers.2.mlp.experts.0.gate_proj.weight']) {
          const [b, i, t] = await Promise.all([base, instruct, thinking].map((c) => c.readFloat32(name)));
          expect(i, name).not.toEqual(b);
          expect(t, name).not.toEqual(i);
        }
      } finally {
        await Promise.all([base, instruct, thinking].map((c) => c.close()));
      }
      const report = JSON.parse(await readFile(paths.report, 'utf8')) as { expertUsage: Record<string, number[][]> };
      expect(Object.keys(report.expertUsage).sort()).toEqual(['base', 'instruct', 'thinking']);
      for (const layer of report.expertUsage['thinking'] ?? []) expect(layer.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    });
  }, 300_000);
});
