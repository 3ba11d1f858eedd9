import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_MEMORY_BUDGET, MEMORY_BUDGET_ENV, attentionChunkBytes, attentionQueryChunk, loopPartBytes, memoryBudget, mlpRowChunk,
  passPartHoldBytes, planMemory, setMemoryBudget, stashedActivationBytes,
} from './memory-plan.ts';

const QWEN3_4B = { hiddenSize: 2560, vocabSize: 151_936 };
const GiB = 1024 ** 3;

afterEach(() => setMemoryBudget(DEFAULT_MEMORY_BUDGET));

describe('planMemory', () => {
  it('sizes lm_head chunks so a quarter of the budget holds one chunk and its products', () => {
    for (const budget of [GiB, 3 * GiB, 6 * GiB]) {
      const plan = planMemory(QWEN3_4B, budget);
      const chunkBytes = plan.vocabChunk * (3 * QWEN3_4B.hiddenSize + 3 * plan.headRows) * 4;
      expect(chunkBytes).toBeLessThanOrEqual(budget / 4);
      expect(plan.vocabChunk % 1024).toBe(0);
    }
    expect(planMemory(QWEN3_4B, 6 * GiB).vocabChunk).toBeGreaterThan(planMemory(QWEN3_4B, GiB).vocabChunk);
  });

  it('never makes a chunk wider than the vocabulary', () => {
    expect(planMemory({ hiddenSize: 16, vocabSize: 300 }, GiB).vocabChunk).toBe(300);
  });

  it('plans with the process budget unless given one', () => {
    setMemoryBudget(GiB);
    expect(memoryBudget()).toBe(GiB);
    expect(planMemory(QWEN3_4B)).toEqual(planMemory(QWEN3_4B, GiB));
    expect(process.env[MEMORY_BUDGET_ENV]).toBe(String(GiB));
    expect(() => setMemoryBudget(1024)).toThrow(/the memory budget must be at least 256MiB, got 1024 bytes/);
  });
});

describe('attentionQueryChunk', () => {
  it('takes the whole sequence when its scores fit, else aligned chunks whose matrices fit', () => {
    const plan = planMemory(QWEN3_4B, 3 * GiB);
    expect(attentionQueryChunk(plan, 4, 64, 64)).toBe(64);
    for (const keys of [4096, 8192, 32_768]) {
      const chunk = attentionQueryChunk(plan, 4, keys, keys);
      expect(chunk).toBeLessThan(keys);
      expect(chunk % 16).toBe(0);
      expect(6 * 4 * chunk * keys * 4).toBeLessThanOrEqual(plan.attentionBytes);
    }
  });

  it('keeps at least 16 queries per chunk however long the sequence', () => {
    expect(attentionQueryChunk(planMemory(QWEN3_4B, 256 * 1024 ** 2), 8, 1_000_000, 1_000_000)).toBe(16);
  });
});

describe('mlpRowChunk', () => {
  it('cuts a Qwen3-4B-shaped 2,048-token MLP into aligned chunks whose sixteen live rows fit an eighth of the budget', () => {
    for (const budget of [GiB, 3 * GiB]) {
      const plan = planMemory(QWEN3_4B, budget);
      const rows = mlpRowChunk(plan, 9728, 2048);
      expect(rows).toBeLessThan(2048);
      expect(rows % 16).toBe(0);
      expect(16 * rows * 9728 * 4).toBeLessThanOrEqual(plan.mlpBytes);
      expect(plan.mlpBytes).toBe(budget / 8);
    }
    expect(mlpRowChunk(planMemory(QWEN3_4B, 3 * GiB), 9728, 2048)).toBe(640);
  });

  it('takes the whole sequence when it fits, and at least 16 rows when nothing does', () => {
    expect(mlpRowChunk(planMemory(QWEN3_4B, 3 * GiB), 9728, 256)).toBe(256);
    expect(mlpRowChunk(planMemory(QWEN3_4B, 256 * 1024 ** 2), 10_000_000, 4096)).toBe(16);
  });
});

describe('what a backward keeps outside tfjs', () => {
  /** Nanbeige4.2-3B (architectures.md §6.2): 22 layers of 143,136,768 parameters, two passes, model.norm between them. */
  const NANBEIGE = { numLayers: 22, hiddenSize: 3072, loop: { numLoops: 2, normBetweenPasses: true } };

  it('stashes every (pass, layer) input, the output before a norm between passes and the final states', () => {
    expect(stashedActivationBytes({ numLayers: 22, hiddenSize: 3072 }, 2048)).toBe(23 * 2048 * 3072 * 4);
    expect(stashedActivationBytes(NANBEIGE, 2048)).toBe((44 + 1 + 1) * 2048 * 3072 * 4);
    expect(stashedActivationBytes({ ...NANBEIGE, loop: { numLoops: 3, normBetweenPasses: false } }, 2048)).toBe((66 + 1) * 2048 * 3072 * 4);
  });

  it('keeps one pass of every layer\'s gradients waiting in a two-pass model (12.6 GB at 3B), nothing without a loop, up to the budget in memory', () => {
    expect(loopPartBytes(NANBEIGE, 143_136_768)).toBe(12_596_035_584);
    expect(loopPartBytes({ numLayers: 22 }, 143_136_768)).toBe(0);
    expect(passPartHoldBytes(GiB)).toBe(GiB);
    setMemoryBudget(2 * GiB);
    expect(passPartHoldBytes()).toBe(2 * GiB);
  });

  it('bounds one attention chunk by the plan once the sequence no longer fits whole', () => {
    const plan = planMemory(QWEN3_4B, 3 * GiB);
    expect(attentionChunkBytes(plan, 4, 256)).toBe(6 * 4 * 256 * 256 * 4);
    expect(attentionChunkBytes(plan, 4, 32_768)).toBeLessThanOrEqual(plan.attentionBytes);
    expect(attentionChunkBytes(plan, 4, 32_768)).toBe(6 * 4 * attentionQueryChunk(plan, 4, 32_768, 32_768) * 32_768 * 4);
  });
});
