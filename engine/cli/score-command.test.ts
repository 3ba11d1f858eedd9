import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeTokenizerFiles } from '../calibration/build-tokenizer.ts';
import { ChatTemplate, NANBEIGE_STYLE_TEMPLATE_PATH } from '../calibration/chat-template.ts';
import { tokenizeChat } from '../calibration/chat-tokens.ts';
import { loadTestTokenizer, testTokenizer } from '../calibration/testing/fixture.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import { withTempDir } from '../io/testing/fixtures.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { writeTinyCheckpoint } from '../model/testing/tiny-checkpoint.ts';
import { initBackend } from '../tensor/backend.ts';
import { runCli } from './testing.ts';

const CHATS = [
  { messages: [{ role: 'user', content: 'What is 12 + 30?' }, { role: 'assistant', content: 'It is 42.' }] },
  {
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    messages: [
      { role: 'user', content: 'The weather in Rome?' },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Rome' } } }] },
      { role: 'tool', content: '{"sky": "sunny"}' },
      { role: 'assistant', content: 'The weather is sunny.' },
    ],
  },
];

/** A tiny random Qwen3 whose vocabulary covers the test tokenizer, plus that tokenizer. */
async function checkpointWithTokenizer(dir: string): Promise<string> {
  const tokenizer = await loadTestTokenizer();
  await mkdir(dir);
  await writeTinyCheckpoint({ vocab: tokenizer.vocabSize, seed: 7 }, dir);
  await writeTokenizerFiles(dir, await testTokenizer());
  return dir;
}

/** The test tokenizer with token `content` renumbered to `id` (the model keeps its rows). */
async function renumberToken(dir: string, content: string, id: number): Promise<void> {
  const { tokenizerJson, tokenizerConfig } = await testTokenizer();
  const json = structuredClone(tokenizerJson) as { model: { vocab: Record<string, number> } };
  json.model.vocab[content] = id;
  await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(json));
  await writeFile(join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig));
}

/** Rewrites the checkpoint's model.safetensors with `value` at index 5 of tensor `name`. */
async function poisonWeight(dir: string, name: string, value: number): Promise<void> {
  const checkpoint = await Checkpoint.open(dir);
  const tensors = [];
  for (const t of checkpoint.tensors.values()) {
    const data = await checkpoint.readFloat32(t.name);
    if (t.name === name) data[5] = value;
    tensors.push({ spec: { name: t.name, dtype: 'F32' as const, shape: t.shape }, data });
  }
  await checkpoint.close();
  await rm(join(dir, 'model.safetensors'));
  await writeSafetensors(join(dir, 'model.safetensors'), tensors);
}

/** Independent route: full logits, then the masked cross-entropy computed here in float64. */
async function referenceLosses(dir: string): Promise<number[]> {
  const tokenizer = await loadTestTokenizer();
  const template = ChatTemplate.fromTokenizer(tokenizer);
  const checkpoint = await Checkpoint.open(dir);
  try {
    const model = loadCausalLM(checkpoint);
    const losses: number[] = [];
    for (const chat of CHATS) {
      const { ids, lossMask } = tokenizeChat(chat as never, tokenizer, template);
      const logits = await model.forwardLogits(ids);
      let sum = 0;
      let count = 0;
      for (let t = 1; t < ids.length; t++) {
        if (lossMask[t] !== 1) continue;
        const row = logits.values.subarray((t - 1) * logits.vocab, t * logits.vocab);
        const max = Math.max(...row);
        const logSumExp = max + Math.log(row.reduce((s, v) => s + Math.exp(v - max), 0));
        sum += logSumExp - (row[ids[t] as number] as number);
        count++;
      }
      losses.push(sum / count);
    }
    return losses;
  } finally {
    await checkpoint.close();
  }
}

describe('crane score', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });

  it('reports the masked loss of each chat, equal to an independent cross-entropy over the logits', async () => {
    await withTempDir(async (root) => {
      const dir = await checkpointWithTokenizer(join(root, 'model'));
      const data = join(root, 'chats.jsonl');
      await writeFile(data, `${CHATS.map((c) => JSON.stringify(c)).join('\n')}\n`);
      const { code, out } = await runCli(['score', dir, data, '--json', '--batch', '1']);
      expect(code).toBe(0);
      const result = JSON.parse(out) as { meanLoss: number; chats: { line: number; targets: number; loss: number }[] };
      const expected = await referenceLosses(dir);
      expect(result.chats.map((c) => c.line)).toEqual([1, 2]);
      result.chats.forEach((c, i) => expect(c.loss).toBeCloseTo(expected[i] as number, 4));
      expect(result.meanLoss).toBeCloseTo(((expected[0] ?? NaN) + (expected[1] ?? NaN)) / 2, 4);
      expect(result.chats[0]?.targets).toBeGreaterThan(0);

      const table = await runCli(['score', dir, data]);
      expect(table.out).toMatch(/^line\s+tokens\s+targets\s+loss/);
      expect(table.out).toMatch(/mean loss over 2 chats: \d+\.\d{4}/);

      const withLogits = JSON.parse((await runCli(['score', dir, data, '--logits', '3'])).out) as { chats: { logits: number[][] }[] };
      expect(withLogits.chats[0]?.logits).toHaveLength(3);
      expect(withLogits.chats[0]?.logits[0]).toHaveLength((await loadTestTokenizer()).vocabSize);
    });
  });

  it('renders with the chat-template flags: tool calls as XML by default or JSON with --tool-call-format json', async () => {
    await withTempDir(async (root) => {
      const dir = await checkpointWithTokenizer(join(root, 'model'));
      await copyFile(NANBEIGE_STYLE_TEMPLATE_PATH, join(dir, 'chat_template.jinja'));
      const data = join(root, 'chats.jsonl');
      await writeFile(data, `${JSON.stringify(CHATS[1])}\n`);
      const tokenizer = await loadTestTokenizer();
      const template = new ChatTemplate(await readFile(NANBEIGE_STYLE_TEMPLATE_PATH, 'utf8'), 'nanbeige-style.jinja');
      const tokens = async (flags: string[]) => (JSON.parse((await runCli(['score', dir, data, '--json', ...flags])).out) as { chats: { tokens: number }[] }).chats[0]?.tokens;
      const expected = (toolCallFormat: 'xml' | 'json') => tokenizeChat(CHATS[1] as never, tokenizer, template, { toolCallFormat }).ids.length;
      expect(expected('xml')).not.toBe(expected('json'));
      expect(await tokens([])).toBe(expected('xml'));
      expect(await tokens(['--tool-call-format', 'json'])).toBe(expected('json'));
      const bad = await runCli(['score', dir, data, '--enable-thinking', 'maybe']);
      expect(bad.code).toBe(2);
      expect(bad.err).toContain('--enable-thinking must be on or off, got "maybe"');
    });
  });

  it('names the file and line of a malformed chat', async () => {
    await withTempDir(async (root) => {
      const dir = await checkpointWithTokenizer(join(root, 'model'));
      const data = join(root, 'bad.jsonl');
      await writeFile(data, `${JSON.stringify(CHATS[0])}\n{"messages": [{"role": "robot", "content": "hi"}]}\n`);
      const { code, err } = await runCli(['score', dir, data]);
      expect(code).toBe(1);
      expect(err).toContain(`${data}:2`);
    });
  });

  it('refuses, in one line naming tokenizer.json and the token, ids the embedding has no row for', async () => {
    await withTempDir(async (root) => {
      const dir = await checkpointWithTokenizer(join(root, 'model'));
      const data = join(root, 'chats.jsonl');
      await writeFile(data, `${JSON.stringify(CHATS[0])}\n`);
      const rows = (await loadTestTokenizer()).vocabSize;
      // 2³¹ made loading hang (a loop up to the largest id); `rows` is one past the embedding.
      for (const id of [2 ** 31, rows]) {
        await renumberToken(dir, 'Ġweather', id);
        const { code, out, err } = await runCli(['score', dir, data]);
        expect(code).toBe(1);
        expect(out).toBe('');
        expect(err).toBe(`crane score: ${join(dir, 'tokenizer.json')}: token "Ġweather" has id ${id}, outside the embedding model.embed_tokens.weight of ${dir} (${rows} rows, ids 0…${rows - 1})`);
      }
      await renumberToken(dir, 'Ġweather', -1);
      const negative = await runCli(['score', dir, data]);
      expect(negative.code).toBe(1);
      expect(negative.err).toBe(`crane score: ${join(dir, 'tokenizer.json')}: model.vocab gives token "Ġweather" the id -1; token ids must be non-negative integers`);
    });
  });

  it('refuses NaN and Inf weights like analyze and merge, naming shard and tensor, and prints no scores', async () => {
    await withTempDir(async (root) => {
      const dir = await checkpointWithTokenizer(join(root, 'model'));
      const data = join(root, 'chats.jsonl');
      await writeFile(data, `${JSON.stringify(CHATS[0])}\n`);
      for (const value of [Number.NaN, Number.NEGATIVE_INFINITY]) {
        await poisonWeight(dir, 'model.layers.1.self_attn.v_proj.weight', value);
        const { code, out, err } = await runCli(['score', dir, data, '--json']);
        expect(code).toBe(1);
        expect(out).toBe('');
        expect(err).toContain(join(dir, 'model.safetensors'));
        expect(err).toContain('model.layers.1.self_attn.v_proj.weight');
        expect(err).toContain(`contains ${value} at flat index 5; nothing was scored`);
      }
    });
  });

  it('cuts chats longer than max_position_embeddings by default, keeps them with warn, stops with refuse, naming file:line', async () => {
    await withTempDir(async (root) => {
      const dir = await checkpointWithTokenizer(join(root, 'model'));
      const data = join(root, 'chats.jsonl');
      await writeFile(data, `${CHATS.map((c) => JSON.stringify(c)).join('\n')}\n`);
      const lengths = (JSON.parse((await runCli(['score', dir, data, '--json'])).out) as { chats: { tokens: number }[] }).chats.map((c) => c.tokens);
      const [short, long] = lengths as [number, number];
      expect(long).toBeGreaterThan(short);
      const configFile = join(dir, 'config.json');
      const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
      await writeFile(configFile, JSON.stringify({ ...config, max_position_embeddings: short }));
      const warning = `warning: ${data}:2: has ${long} tokens, more than the model's context (max_position_embeddings ${short} in ${configFile})`;

      const cut = await runCli(['score', dir, data, '--json']);
      expect(cut.code).toBe(0);
      expect((JSON.parse(cut.out) as { chats: { tokens: number }[] }).chats.map((c) => c.tokens)).toEqual([short, short]);
      expect(cut.err).toBe(`${warning}: cut to its first ${short} tokens`);

      const kept = await runCli(['score', dir, data, '--json', '--long-sequences', 'warn']);
      expect((JSON.parse(kept.out) as { chats: { tokens: number }[] }).chats.map((c) => c.tokens)).toEqual([short, long]);
      expect(kept.err).toBe(`${warning}: kept whole, positions past the context are untrained`);

      const refused = await runCli(['score', dir, data, '--long-sequences', 'refuse']);
      expect(refused.code).toBe(1);
      expect(refused.out).toBe('');
      expect(refused.err).toMatch(new RegExp(`^crane score: ${data}:2: has ${long} tokens, more than the model's context`));

      const usage = await runCli(['score', dir, data, '--long-sequences', 'drop']);
      expect(usage.code).toBe(2);
      expect(usage.err).toContain('--long-sequences must be one of cut, warn, refuse, got "drop"');
    });
  });
});
