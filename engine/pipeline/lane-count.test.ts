import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { writeTinyCheckpoint } from '../model/testing/tiny-checkpoint.ts';
import { forwardLanes, laneCount, MIN_LANE_FLOPS } from './lane-count.ts';

const roomy = { cores: 2, freeBytes: 8 * 2 ** 30 };

describe('laneCount', () => {
  it('takes a second lane only with two cores, enough work and room for the worker', () => {
    const work = { flops: MIN_LANE_FLOPS, laneBytes: 2 ** 30 };
    expect(laneCount(work, roomy)).toBe(2);
    expect(laneCount(work, { ...roomy, cores: 1 })).toBe(1);
    expect(laneCount({ ...work, flops: MIN_LANE_FLOPS / 2 }, roomy)).toBe(1);
    expect(laneCount(work, { ...roomy, freeBytes: 2 ** 30 - 1 })).toBe(1);
  });
});

describe('forwardLanes', () => {
  it('counts 2 FLOPs per decoder parameter per token of a real checkpoint', async () => {
    const dir = await writeTinyCheckpoint({ family: 'qwen3', seed: 3, layers: 2 });
    const checkpoint = await Checkpoint.open(dir);
    try {
      let decoderParams = 0;
      for (const [name, info] of checkpoint.tensors) if (name.startsWith('model.layers.')) decoderParams += info.shape.reduce((a, b) => a * b, 1);
      const tokens = Math.ceil(MIN_LANE_FLOPS / (2 * decoderParams));
      expect(forwardLanes(checkpoint, [{ ids: new Array<number>(tokens).fill(1) }], roomy)).toBe(2);
      expect(forwardLanes(checkpoint, [{ ids: new Array<number>(tokens - 1).fill(1) }], roomy)).toBe(1);
    } finally {
      await checkpoint.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
