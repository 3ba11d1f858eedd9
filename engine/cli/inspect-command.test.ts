import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { f32Tensor, withTempDir, writeFixtureCheckpoint } from '../io/testing/fixtures.ts';
import { qwen3TokenizerFiles } from '../io/testing/qwen3-tokenizer.ts';
import { runCli } from './testing.ts';

const CONFIG = { model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], num_hidden_layers: 1, hidden_size: 4 };

const makeCheckpoint = (dir: string, config = CONFIG) =>
  writeFixtureCheckpoint(dir, [f32Tensor('model.embed_tokens.weight', [6, 4], 1), { spec: { name: 'model.norm.weight', dtype: 'BF16', shape: [4] }, data: new Float32Array(4) }], {
    config,
    maxShardBytes: 64,
  });

describe('crane inspect', () => {
  it('prints the summary and tensor table of one checkpoint', async () => {
    await withTempDir(async (root) => {
      const dir = await makeCheckpoint(join(root, 'm'));
      const { code, out } = await runCli(['inspect', dir]);
      expect(code).toBe(0);
      expect(out).toContain('Architecture ["Qwen3ForCausalLM"] (model_type "qwen3"), 1 layers');
      expect(out).toContain('Weights      2 tensors, 104 B in 2 file(s): model-00001-of-00002.safetensors, model-00002-of-00002.safetensors');
      expect(out).toMatch(/model\.embed_tokens\.weight\s+F32\s+\[6, 4\]\s+model-00001-of-00002\.safetensors\s+96 B/);
      expect(out).toMatch(/model\.norm\.weight\s+BF16\s+\[4\]\s+model-00002-of-00002\.safetensors\s+8 B/);
    });
  });

  it('prints JSON with --json', async () => {
    await withTempDir(async (root) => {
      const dir = await makeCheckpoint(join(root, 'm'));
      const { code, out } = await runCli(['inspect', dir, '--json']);
      expect(code).toBe(0);
      const json = JSON.parse(out);
      expect(json.totalBytes).toBe(104);
      expect(json.tensors[1]).toEqual({ name: 'model.norm.weight', dtype: 'BF16', shape: [4], shard: 'model-00002-of-00002.safetensors', bytes: 8 });
    });
  });

  it('prints a pair report and exits 1 when the pair is incompatible', async () => {
    await withTempDir(async (root) => {
      const a = await makeCheckpoint(join(root, 'a'));
      const same = await makeCheckpoint(join(root, 'b'));
      const other = await makeCheckpoint(join(root, 'c'), { ...CONFIG, hidden_size: 8 });
      const ok = await runCli(['inspect', a, same]);
      expect(ok.code).toBe(0);
      expect(ok.out).toContain('Compatible: the pair can be edited with CRANE.');
      expect(ok.out).toContain('Protected 0 lm_head rows kept at θ_I: none');
      const bad = await runCli(['inspect', a, other]);
      expect(bad.code).toBe(1);
      expect(bad.out).toContain('ERROR   config.json "hidden_size" differs: Instruct 4, Thinking 8');
      expect(bad.out).toContain('NOT compatible');
      const json = JSON.parse((await runCli(['inspect', a, other, '--json'])).out);
      expect(json.compatible).toBe(false);
    });
  });

  it('checks a Base checkpoint with --base and refuses --base without a pair', async () => {
    await withTempDir(async (root) => {
      const [a, b, base] = [await makeCheckpoint(join(root, 'a')), await makeCheckpoint(join(root, 'b')), await makeCheckpoint(join(root, 'base'))];
      const ok = await runCli(['inspect', a, b, '--base', base]);
      expect(ok.code).toBe(0);
      expect(ok.out).toContain(`Base      ${base}: 2 tensors match, 0 missing, 0 shape mismatches`);
      // the base line sits in the summary; one blank line still separates it from the findings
      expect(ok.out).toMatch(/shape mismatches\nTensors [^]*strength\)\n\n\S/);
      const lacking = await writeFixtureCheckpoint(join(root, 'lacking'), [f32Tensor('model.embed_tokens.weight', [6, 4], 3)], { config: CONFIG });
      const bad = await runCli(['inspect', a, b, '--base', lacking]);
      expect(bad.code).toBe(1);
      expect(bad.out).toContain(`ERROR   1 tensor of the pair is missing from Base ${lacking}: model.norm.weight`);
      const usage = await runCli(['inspect', a, '--base', base]);
      expect(usage.code).toBe(2);
      expect(usage.err).toMatch(/--base needs a pair/);
    });
  });

  it('lists the protected and think rows of a Qwen3 pair from its real tokenizer', async () => {
    await withTempDir(async (root) => {
      const sideFiles = await qwen3TokenizerFiles();
      const qwen3 = (name: string) => writeFixtureCheckpoint(join(root, name), [f32Tensor('model.embed_tokens.weight', [6, 4], 1)], { config: CONFIG, sideFiles });
      const [a, b] = [await qwen3('a'), await qwen3('b')];
      const { code, out } = await runCli(['inspect', a, b]);
      expect(code).toBe(0);
      expect(out).toContain("Protected 24 lm_head rows kept at θ_I: 151643–151666 (Instruct's added tokens but the think pair)");
      expect(out).toContain('Think     rows 151667–151668');
      expect(JSON.parse((await runCli(['inspect', a, b, '--json'])).out).tokens).toEqual({ think: [151667, 151668], special: Array.from({ length: 24 }, (_, i) => 151643 + i) });
    });
  });

  it('names the broken file on bad input and explains bad usage', async () => {
    const missing = await runCli(['inspect', '/nonexistent/model']);
    expect(missing).toEqual({ code: 1, out: '', err: 'crane inspect: /nonexistent/model: checkpoint folder not found' });
    const usage = await runCli(['inspect']);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('expected one or two checkpoint folders');
    expect((await runCli(['inspect', '--help'])).out).toContain('Usage: crane inspect DIR [DIR2] [--json]');
  });

  it('lists the commands on --help and rejects unknown ones', async () => {
    expect((await runCli(['--help'])).out).toMatch(/inspect\s+tensor table of a checkpoint/);
    const unknown = await runCli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown command "frobnicate"');
  });
});

describe('crane option parsing', () => {
  it('reports an unknown option as a usage error', async () => {
    const { code, err } = await runCli(['inspect', '/tmp', '--jsn']);
    expect(code).toBe(2);
    expect(err).toMatch(/crane inspect: Unknown option '--jsn'/);
  });
});
