import * as tf from '@tensorflow/tfjs-core';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { initBackend } from '../tensor/backend.ts';
import { loadCausalLM, type CausalLM } from './causal-lm.ts';
import { argmax } from './decode.ts';
import { writeTinyCheckpoint } from './testing/tiny-checkpoint.ts';

describe('greedy decoding', () => {
  let dir: string;
  let checkpoint: Checkpoint;
  let model: CausalLM;
  const prompt = [3, 14, 15, 9, 26, 5];

  beforeAll(async () => {
    await initBackend('wasm');
    dir = await writeTinyCheckpoint({ family: 'qwen3', seed: 5, std: 0.4, vocab: 64, layers: 2 });
    checkpoint = await Checkpoint.open(dir);
    model = loadCausalLM(checkpoint);
  });

  afterAll(async () => {
    await checkpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('yields the same tokens with and without the KV cache', async () => {
    const before = tf.memory().numTensors;
    const cached = await model.greedyDecode(prompt, { maxNewTokens: 16, stopTokenIds: [] });
    const uncached = await model.greedyDecode(prompt, { maxNewTokens: 16, stopTokenIds: [], useCache: false });
    expect(cached.tokens).toHaveLength(16);
    expect(cached.stopReason).toBe('max-tokens');
    expect(cached.tokens).toEqual(uncached.tokens);
    expect(new Set(cached.tokens).size).toBeGreaterThan(1);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('first token is the argmax of the full forward logits at the last prompt position', async () => {
    const logits = await model.forwardLogits(prompt, [prompt.length - 1]);
    const { tokens } = await model.greedyDecode(prompt, { maxNewTokens: 1 });
    expect(tokens).toEqual([argmax(logits.values)]);
  });

  it('stops after a stop token and includes it', async () => {
    const free = await model.greedyDecode(prompt, { maxNewTokens: 8, stopTokenIds: [] });
    const stop = free.tokens[3] as number;
    const firstAt = free.tokens.indexOf(stop);
    const result = await model.greedyDecode(prompt, { maxNewTokens: 8, stopTokenIds: [stop] });
    expect(result.stopReason).toBe('stop-token');
    expect(result.tokens).toEqual(free.tokens.slice(0, firstAt + 1));
  });

  it('defaults the stop set to eos_token_id and honours a zero budget', async () => {
    expect(model.spec.eosTokenIds).toEqual([2]);
    expect(await model.greedyDecode(prompt, { maxNewTokens: 0 })).toEqual({ tokens: [], stopReason: 'max-tokens' });
  });

  it('reports each token and can be cancelled', async () => {
    const seen: number[] = [];
    const controller = new AbortController();
    const run = model.greedyDecode(prompt, {
      maxNewTokens: 10,
      stopTokenIds: [],
      onToken: (id) => {
        seen.push(id);
        if (seen.length === 2) controller.abort();
      },
      signal: controller.signal,
    });
    await expect(run).rejects.toThrow();
    expect(seen).toHaveLength(2);
  });
});
