import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeTokenizerFiles } from '../calibration/build-tokenizer.ts';
import { ChatTemplate } from '../calibration/chat-template.ts';
import { tokenizeChat } from '../calibration/chat-tokens.ts';
import { loadTestTokenizer, testTokenizer } from '../calibration/testing/fixture.ts';
import { Checkpoint } from '../io/checkpoint.ts';
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
});
