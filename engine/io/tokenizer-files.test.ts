import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from './checkpoint.ts';
import { withTempDir, writeFixtureCheckpoint } from './testing/fixtures.ts';
import { summarizeTokenizer } from './tokenizer-files.ts';

const tensor = { spec: { name: 'w', dtype: 'F32' as const, shape: [2] }, data: Float32Array.of(1, 2) };
const tokenizer = (added: Record<string, number>, vocab: Record<string, number>) => JSON.stringify({
  model: { type: 'BPE', vocab, merges: [] },
  added_tokens: Object.entries(added).map(([content, id]) => ({ id, content, special: true })),
});

async function summaries(files: { instruct: Record<string, string>; thinking: Record<string, string> }, root: string) {
  const open = async (side: 'instruct' | 'thinking') => Checkpoint.open(await writeFixtureCheckpoint(join(root, side), [tensor], { sideFiles: files[side] }));
  const [instruct, thinking] = [await open('instruct'), await open('thinking')];
  try {
    const first = await summarizeTokenizer(instruct);
    return { first, second: await summarizeTokenizer(thinking, first), alone: await summarizeTokenizer(thinking) };
  } finally {
    await instruct.close();
    await thinking.close();
  }
}

describe('summarizeTokenizer with the other side\'s summary', () => {
  it('gives what summarizing the file alone gives, for a byte-identical tokenizer.json (its own chat template kept)', () => withTempDir(async (root) => {
    const text = tokenizer({ '<think>': 3, '<|im_end|>': 4 }, { a: 0, b: 1, c: 2 });
    const { first, second, alone } = await summaries({
      instruct: { 'tokenizer.json': text, 'chat_template.jinja': 'instruct {{ messages }}' },
      thinking: { 'tokenizer.json': text, 'chat_template.jinja': 'thinking {{ messages }}' },
    }, root);
    for (const summary of [second, alone]) {
      expect(summary.fileHash).toBe(first.fileHash);
      expect([...summary.addedTokens]).toEqual([...first.addedTokens]);
      expect(summary.vocabSize).toBe(3);
      expect(summary.vocabHash()).toBe(first.vocabHash());
      expect(summary.chatTemplate).toBe('thinking {{ messages }}');
    }
  }));

  it('parses a tokenizer.json that differs on its own', () => withTempDir(async (root) => {
    const { first, second, alone } = await summaries({
      instruct: { 'tokenizer.json': tokenizer({ '<think>': 3 }, { a: 0, b: 1, c: 2 }) },
      thinking: { 'tokenizer.json': tokenizer({ '<think>': 5 }, { a: 0, b: 1, c: 2, d: 3, e: 4 }) },
    }, root);
    expect(second.fileHash).not.toBe(first.fileHash);
    for (const summary of [second, alone]) {
      expect([...summary.addedTokens]).toEqual([['<think>', { id: 5, special: true }]]);
      expect(summary.vocabSize).toBe(5);
      expect(summary.vocabHash()).not.toBe(first.vocabHash());
    }
  }));
});
