/**
 * The default gradient worker count: the cores, capped by the workers that fit in free memory,
 * and 1 for work too small to pay for starting threads.
 */
import { describe, expect, it } from 'vitest';
import { defaultWorkerCount, gradientWorkerBytes, MIN_PARALLEL_FLOPS, type GradientWorkShape } from './worker-count.ts';

/** Qwen3-0.6B: 28 layers of ~15.7M parameters, 151,936 × 1,024 head; 8 × 256-token batches. */
const QWEN3_06B: GradientWorkShape = { layers: 28, hidden: 1024, vocab: 151936, heads: 16, layerParams: 15_730_688, batchTokens: 2048, longestSequence: 256, totalTokens: 16_384 };
const GiB = 2 ** 30;

describe('default gradient worker count', () => {
  it('estimates a worker from its layer, head, stash and attention scores', () => {
    const floats = 4 * 15_730_688 + 2 * 151936 * 1024 + 29 * 2048 * 1024 + 16 * 256 ** 2;
    expect(gradientWorkerBytes(QWEN3_06B)).toBe(128 * 2 ** 20 + 4 * floats);
    expect(gradientWorkerBytes(QWEN3_06B) / GiB).toBeCloseTo(1.75, 2);
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
