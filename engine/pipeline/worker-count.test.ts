/**
 * The default gradient worker count: the cores, capped by the workers that fit in free memory,
 * and 1 for work too small to pay for starting threads.
 */
import { describe, expect, it } from 'vitest';
import { defaultWorkerCount, gradientWorkerBytes, MIN_PARALLEL_FLOPS, type GradientWorkShape } from './worker-count.ts';

/** Nanbeige4.2-3B (architectures.md §6.2): 22 layers run twice, 143,136,768 parameters per layer, 2 × 2,048-token batches. */
const NANBEIGE_3B_ONE_PASS: GradientWorkShape = {
  layers: 22, hidden: 3072, vocab: 166144, heads: 48, kvHeads: 8, layerParams: 143_136_768, batchTokens: 4096, longestSequence: 2048, totalTokens: 4096,
};
const NANBEIGE_3B: GradientWorkShape = { ...NANBEIGE_3B_ONE_PASS, loop: { numLoops: 2, normBetweenPasses: true } };

/** Qwen3-0.6B: 28 layers of ~15.7M parameters, 151,936 × 1,024 head; 8 × 256-token batches. */
const QWEN3_06B: GradientWorkShape = { layers: 28, hidden: 1024, vocab: 151936, heads: 16, kvHeads: 8, layerParams: 15_730_688, batchTokens: 2048, longestSequence: 256, totalTokens: 16_384 };
const GiB = 2 ** 30;

describe('default gradient worker count', () => {
  it('estimates a worker from its layer, head, stash and one KV head\'s attention scores', () => {
    // 256 tokens fit one attention chunk: 6 score matrices of [group · T, T], group 16 / 8
    const floats = 4 * 15_730_688 + 2 * 151936 * 1024 + 29 * 2048 * 1024 + 6 * 2 * 256 ** 2;
    expect(gradientWorkerBytes(QWEN3_06B, 3 * GiB)).toBe(128 * 2 ** 20 + 4 * floats);
    expect(gradientWorkerBytes(QWEN3_06B, 3 * GiB) / GiB).toBeCloseTo(1.75, 2);
  });

  it('counts attention as the planned query chunk, not heads · T² at once', () => {
    const long = { ...QWEN3_06B, batchTokens: 8192, longestSequence: 8192 };
    const withoutAttention = 128 * 2 ** 20 + 4 * (4 * 15_730_688 + 2 * 151936 * 1024 + 29 * 8192 * 1024);
    // at 3 GiB attention gets 384 MiB: 1,024 query rows × 8,192 keys × group 2 × 6 matrices × 4 bytes
    expect(gradientWorkerBytes(long, 3 * GiB) - withoutAttention).toBe(6 * 2 * 1024 * 8192 * 4);
    expect(16 * 8192 ** 2 * 4).toBe(4 * GiB); // what heads · T² said
  });

  it('counts a looped model\'s stash: every pass\'s layer inputs and the gradients waiting for pass 0, in memory up to the budget', () => {
    const base = 128 * 2 ** 20 + 4 * (4 * 143_136_768 + 2 * 166144 * 3072);
    // inputs of 2 × 22 (pass, layer)s, the pass output before the norm between passes, the final states
    const stash = (2 * 22 + 1 + 1) * 4096 * 3072 * 4;
    // group 48 / 8; at 3 GiB a chunk is 1,360 query rows (384 MiB / (6 · 6 · 2,048 · 4) = 1,365, in whole tiles of 16), at 64 GiB all 2,048
    const attention = 6 * 6 * 1360 * 2048 * 4;
    const wholeAttention = 6 * 6 * 2048 ** 2 * 4;
    // 22 layers of pass-1 gradients wait (12.6 GB); a 3 GiB budget keeps 3 GiB of them, a 64 GiB one all
    const waiting = 22 * 143_136_768 * 4;
    const handedOn = 3 * 143_136_768 * 4;
    expect(gradientWorkerBytes(NANBEIGE_3B, 3 * GiB)).toBe(base + stash + attention + 3 * GiB + handedOn);
    expect(gradientWorkerBytes(NANBEIGE_3B, 64 * GiB)).toBe(base + stash + wholeAttention + waiting + handedOn);
    expect(gradientWorkerBytes(NANBEIGE_3B_ONE_PASS, 3 * GiB)).toBe(base + 23 * 4096 * 3072 * 4 + attention);
  });

  it('uses every core when memory allows, fewer when it does not, and at least one', () => {
    expect(defaultWorkerCount(QWEN3_06B, { cores: 8, freeBytes: 64 * GiB })).toBe(8);
    expect(defaultWorkerCount(QWEN3_06B, { cores: 8, freeBytes: 4 * GiB })).toBe(2);
    expect(defaultWorkerCount(QWEN3_06B, { cores: 8, freeBytes: GiB })).toBe(1);
  });

  it('keeps small work in one thread', () => {
    const tiny = { ...QWEN3_06B, layers: 2, layerParams: 30_000, vocab: 64, hidden: 32, totalTokens: 100 };
    expect(6 * (2 * 30_000 + 64 * 32) * 100).toBeLessThan(MIN_PARALLEL_FLOPS);
    expect(defaultWorkerCount(tiny, { cores: 8, freeBytes: 64 * GiB })).toBe(1);
  });
});
