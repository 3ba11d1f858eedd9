/**
 * The demo training script is deterministic: two smoke-scale runs from the same seed write
 * bit-identical checkpoints and data, and a --resume run that reads the base back from base/
 * fine-tunes to the same bytes. (The full-scale run is the same code with larger counts.)
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../../engine/io/testing/fixtures.ts';
import { Checkpoint } from '../../engine/io/checkpoint.ts';

const FILES = ['base/model.safetensors', 'instruct/model.safetensors', 'thinking/model.safetensors', 'instruct/tokenizer.json', 'data/eval.jsonl', 'data/format.jsonl', 'data/rain-reasoning.json', 'data/rain-instructions.jsonl'];

async function fingerprint(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const file of FILES) out[file] = createHash('sha256').update(await readFile(join(root, file))).digest('hex');
  return out;
}

describe('demo:train', () => {
  it('reproduces its outputs bit for bit from the seed, as loadable Qwen3 checkpoints that differ', async () => {
    await withTempDir(async (root) => {
      const run = (out: string, ...flags: string[]) => execFileSync(process.execPath, ['--import', 'tsx', 'tools/demo/train.ts', '--out', out, '--scale', '0.002', ...flags], { stdio: 'pipe', env: { ...process.env, CRANE_BACKEND: 'wasm' } });
      run(join(root, 'a'));
      run(join(root, 'b'));
      expect(await fingerprint(join(root, 'a'))).toEqual(await fingerprint(join(root, 'b')));
      const resumed = run(join(root, 'b'), '--resume').toString();
      expect(resumed).toContain(`--resume: base from ${join(root, 'b', 'base')}`);
      expect(resumed).not.toMatch(/base step/);
      expect(await fingerprint(join(root, 'b'))).toEqual(await fingerprint(join(root, 'a')));
      const [base, instruct, thinking] = [await Checkpoint.open(join(root, 'a/base')), await Checkpoint.open(join(root, 'a/instruct')), await Checkpoint.open(join(root, 'a/thinking'))];
      try {
        expect(instruct.config['architectures']).toEqual(['Qwen3ForCausalLM']);
        expect(base.config).toEqual(instruct.config);
        expect(instruct.sideFiles).toEqual(expect.arrayContaining(['tokenizer.json', 'tokenizer_config.json', 'generation_config.json']));
        const name = 'model.layers.0.mlp.up_proj.weight';
        expect(await instruct.readFloat32(name)).not.toEqual(await thinking.readFloat32(name));
      } finally {
        await Promise.all([base.close(), instruct.close(), thinking.close()]);
      }
    });
  }, 300_000);
});
