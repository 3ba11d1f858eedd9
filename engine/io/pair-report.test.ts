import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from './checkpoint.ts';
import { comparePair, type PairReport } from './pair-report.ts';
import { f32Tensor, withTempDir, writeFixtureCheckpoint, type FixtureTensor } from './testing/fixtures.ts';
import { qwen3TokenizerFiles } from './testing/qwen3-tokenizer.ts';

const CONFIG = { model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], hidden_size: 4, num_hidden_layers: 1, rope_theta: 1e6 };

function tokenizerJson(added: Record<string, number>, vocab: Record<string, number> = { a: 0, b: 1 }): string {
  return JSON.stringify({
    model: { type: 'BPE', vocab, merges: [] },
    added_tokens: Object.entries(added).map(([content, id]) => ({ id, content, special: true })),
  });
}

const SPECIALS = { '<|im_start|>': 2, '<|im_end|>': 3, '<think>': 4 };
const TEMPLATE = (t: string) => JSON.stringify({ chat_template: t });

interface Side {
  tensors?: FixtureTensor[];
  config?: Record<string, unknown>;
  sideFiles?: Record<string, string>;
}

async function compare(instruct: Side, thinking: Side): Promise<PairReport> {
  return withTempDir(async (root) => {
    const base = [f32Tensor('model.embed_tokens.weight', [5, 4], 1), f32Tensor('model.layers.0.mlp.up_proj.weight', [8, 4], 2)];
    const defaults = { 'tokenizer.json': tokenizerJson(SPECIALS), 'tokenizer_config.json': TEMPLATE('{{ messages }}') };
    const open = async (name: string, side: Side, seed: number) =>
      Checkpoint.open(
        await writeFixtureCheckpoint(join(root, name), side.tensors ?? base.map((t) => f32Tensor(t.spec.name, t.spec.shape, seed)), {
          config: side.config ?? CONFIG,
          sideFiles: { ...defaults, ...side.sideFiles },
        }),
      );
    const [a, b] = [await open('instruct', instruct, 1), await open('thinking', thinking, 2)];
    try {
      return await comparePair(a, b);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
}

const codes = (report: PairReport) => report.findings.map((f) => `${f.severity}:${f.code}`);

describe('pair compatibility report', () => {
  it('passes a matching pair with different weights and only a version field changed', async () => {
    const report = await compare({}, { config: { ...CONFIG, transformers_version: '4.99' } });
    expect(report.compatible).toBe(true);
    expect(report.sharedTensors).toBe(2);
    expect(report.findings).toEqual([]);
  });

  it('blocks a structural config difference and names the field and both values', async () => {
    const report = await compare({}, { config: { ...CONFIG, hidden_size: 8 } });
    expect(report.compatible).toBe(false);
    expect(report.findings).toContainEqual({ severity: 'error', code: 'config-structure', message: 'config.json "hidden_size" differs: Instruct 4, Thinking 8' });
  });

  it('warns (but allows) a differing non-structural field', async () => {
    const report = await compare({}, { config: { ...CONFIG, rope_theta: 5e6 } });
    expect(report.compatible).toBe(true);
    expect(report.verdict).toBe('caveats');
    expect(codes(report)).toEqual(['warning:config-value']);
  });

  it('says in one word whether an edit can run: refused, caveats, compatible', async () => {
    expect((await compare({}, {})).verdict).toBe('compatible');
    expect((await compare({}, { config: { ...CONFIG, hidden_size: 8 } })).verdict).toBe('refused');
    expect((await compare({ tensors: [] }, {})).verdict).toBe('refused');
    const renamed = await compare({}, { tensors: [f32Tensor('model.embed_tokens.weight', [5, 4], 2), f32Tensor('model.layers.0.mlp.up_proj.renamed', [8, 4], 2)] });
    expect(renamed.verdict).toBe('caveats');
    const reshaped = await compare({}, { tensors: [f32Tensor('model.embed_tokens.weight', [5, 4], 2), f32Tensor('model.layers.0.mlp.up_proj.weight', [4, 4], 2)] });
    expect(reshaped.verdict).toBe('caveats');
  });

  it('calls one folder given twice identical (δ = 0), not compatible', async () => {
    await withTempDir(async (root) => {
      const dir = await writeFixtureCheckpoint(join(root, 'model'), [f32Tensor('model.layers.0.mlp.up_proj.weight', [8, 4], 1)], { config: CONFIG });
      const [a, b] = [await Checkpoint.open(dir), await Checkpoint.open(dir)];
      try {
        const report = await comparePair(a, b);
        expect(report.verdict).toBe('identical');
        expect(report.findings).toContainEqual({ severity: 'warning', code: 'pair-identical', message: `Instruct and Thinking are the same folder (${dir}): δ = 0, an edit changes nothing` });
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  });

  it('lists tensors missing on either side, shape and dtype mismatches', async () => {
    const report = await compare(
      { tensors: [f32Tensor('a', [2], 1), f32Tensor('b', [2, 2], 1), f32Tensor('c', [2], 1), f32Tensor('only.instruct', [1], 1)] },
      {
        tensors: [
          f32Tensor('a', [2], 2),
          f32Tensor('b', [2, 3], 2),
          { spec: { name: 'c', dtype: 'BF16', shape: [2] }, data: new Float32Array(2) },
          f32Tensor('only.thinking', [1], 2),
        ],
      },
    );
    expect(report.onlyInInstruct).toEqual(['only.instruct']);
    expect(report.onlyInThinking).toEqual(['only.thinking']);
    expect(report.shapeMismatches).toEqual([{ name: 'b', instruct: '[2, 2]', thinking: '[2, 3]' }]);
    expect(report.dtypeMismatches).toEqual([{ name: 'c', instruct: 'F32', thinking: 'BF16' }]);
    expect(codes(report)).toEqual(['warning:tensor-missing', 'warning:tensor-extra', 'warning:tensor-shape', 'info:tensor-dtype']);
    expect(report.compatible).toBe(true);
  });

  it('blocks a dtype mismatch where one side is not floating point (I64 vs F32: no δ), keeps F64 vs F32 an info', async () => {
    const report = await compare(
      { tensors: [f32Tensor('w', [2], 1), f32Tensor('x', [2], 1), { spec: { name: 'ids', dtype: 'I64', shape: [2] }, data: BigInt64Array.from([1n, 2n]) }] },
      {
        tensors: [
          { spec: { name: 'w', dtype: 'I64', shape: [2] }, data: BigInt64Array.from([1n, 2n]) },
          { spec: { name: 'x', dtype: 'F64', shape: [2] }, data: Float64Array.from([1, 2]) },
          { spec: { name: 'ids', dtype: 'I64', shape: [2] }, data: BigInt64Array.from([1n, 2n]) },
        ],
      },
    );
    expect(report.compatible).toBe(false);
    expect(report.findings).toContainEqual({ severity: 'error', code: 'tensor-dtype', message: '1 tensor differs in dtype and its sides are not both floating point, so no δ can be formed: w F32 vs I64' });
    expect(report.findings).toContainEqual({ severity: 'info', code: 'tensor-dtype', message: '1 tensor differs in dtype (both are read as float32): x' });
  });

  it('blocks a side with no tensors at all (an empty Instruct would make every edit a copy)', async () => {
    const report = await compare({ tensors: [] }, {});
    expect(report.compatible).toBe(false);
    expect(report.findings).toContainEqual({ severity: 'error', code: 'tensor-none', message: 'the Instruct checkpoint has no tensors: there is nothing to edit' });
    expect(codes(await compare({}, { tensors: [] }))).toContain('error:tensor-none');
  });

  it('compares config fields named like Object.prototype members as plain fields', async () => {
    const report = await compare({}, { config: { ...CONFIG, constructor: 1, toString: 'x' } });
    expect(report.findings.map((f) => f.message)).toEqual([
      'config.json "constructor" differs: Instruct absent, Thinking 1',
      'config.json "toString" differs: Instruct absent, Thinking "x"',
    ]);
  });

  it('blocks different vocabularies and moved special tokens', async () => {
    const report = await compare(
      {},
      { sideFiles: { 'tokenizer.json': tokenizerJson({ ...SPECIALS, '<think>': 5 }, { a: 0, b: 1, c: 2 }) } },
    );
    expect(report.compatible).toBe(false);
    expect(report.findings.map((f) => f.message)).toEqual([
      'tokenizer.json models differ (vocabulary, merges or type; 2 vs 3 entries): the same id would mean different tokens',
      'token <think> has id 4 in Instruct but 5 in Thinking',
    ]);
  });

  it('notes a different chat template without blocking (the Instruct template renders calibration chats)', async () => {
    const report = await compare({}, { sideFiles: { 'tokenizer_config.json': TEMPLATE('{{ other }}') } });
    expect(report.compatible).toBe(true);
    expect(codes(report)).toEqual(['info:chat-template']);
  });

  it('protects every added token but the think pair, special or not, from Instruct\'s tokenizer.json', async () => {
    const added = [
      { id: 2, content: '<|im_start|>', special: true }, { id: 3, content: '<tool_call>', special: false },
      { id: 4, content: '<think>', special: false }, { id: 5, content: '</think>', special: true },
    ];
    const tokenizer = JSON.stringify({ model: { type: 'BPE', vocab: { a: 0, b: 1 }, merges: [] }, added_tokens: added });
    const report = await compare({ sideFiles: { 'tokenizer.json': tokenizer } }, {});
    expect(report.tokens).toEqual({ think: [4, 5], special: [2, 3] });
  });

  it('protects ids 151643–151666 of the real Qwen3 tokenizer: the 24 added tokens below <think> (151667) and </think> (151668)', async () => {
    const files = await qwen3TokenizerFiles();
    // By hand from the file: the added tokens and which of them are the think pair.
    const added = (JSON.parse(files['tokenizer.json']) as { added_tokens: { id: number; content: string; special: boolean }[] }).added_tokens;
    expect(added.find((t) => t.content === '<think>')?.id).toBe(151667);
    expect(added.find((t) => t.content === '</think>')?.id).toBe(151668);
    expect(added.filter((t) => !t.special).map((t) => t.content)).toContain('<tool_call>');
    const report = await compare({ sideFiles: files }, { sideFiles: files });
    expect(report.compatible).toBe(true);
    expect(report.tokens).toEqual({ think: [151667, 151668], special: Array.from({ length: 24 }, (_, i) => 151643 + i) });
  });

  it('blocks models that differ only in their merges, however alike the rest of the files', async () => {
    const merged = JSON.stringify({ ...JSON.parse(tokenizerJson(SPECIALS)), model: { type: 'BPE', vocab: { a: 0, b: 1 }, merges: ['a b'] } });
    const report = await compare({}, { sideFiles: { 'tokenizer.json': merged } });
    expect(codes(report)).toEqual(['error:tokenizer-vocab']);
  });

  it('treats key order in tokenizer.json as irrelevant', async () => {
    const reordered = JSON.stringify({ added_tokens: JSON.parse(tokenizerJson(SPECIALS)).added_tokens, model: { merges: [], vocab: { b: 1, a: 0 }, type: 'BPE' } });
    const report = await compare({}, { sideFiles: { 'tokenizer.json': reordered } });
    expect(report.findings).toEqual([]);
  });
});
