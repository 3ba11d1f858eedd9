/**
 * ProjectorSolves with a real forward lane (a worker thread on the committed tiny Qwen3-MoE
 * checkpoint): every key's projector is the bits projectorOfRows gives on this thread, whichever
 * thread solved it (kept-rows and Gram keys, a key with too few rows for a projector), and a lane
 * that fails makes finish() throw its error.
 */
import { describe, expect, it } from 'vitest';
import { GramAccumulator } from '../crane/gram-accumulator.ts';
import { projectorOfRows } from '../crane/gsp-projector.ts';
import { lcg } from '../linalg/testing/matrices.ts';
import { useMoeCheckpoint } from '../model/testing/moe-golden.ts';
import { ForwardLane, ForwardLaneError } from './forward-lane.ts';
import { ProjectorSolves } from './projector-solves.ts';

const openCheckpoint = useMoeCheckpoint();
const DIM = 32;
const OPTIONS = { maxRank: 6, rankCut: 1e-5 };

/** Keys of 1, 5 (kept rows) and 40 (Gram) rows. */
function grams(): Map<string, GramAccumulator> {
  const next = lcg(3);
  return new Map([1, 5, 40, 5, 40, 6].map((rows, i) => {
    const gram = new GramAccumulator(DIM);
    gram.addRows(Float32Array.from({ length: rows * DIM }, () => next()));
    return [`key${i}`, gram];
  }));
}

const bytes = (values: Float64Array | Float32Array | undefined): Buffer => Buffer.from(values?.buffer ?? new ArrayBuffer(0));

describe('ProjectorSolves', () => {
  it('gives every key the projector this thread computes, bit for bit, with the lane solving part of them', async () => {
    const expected = new Map([...grams()].map(([key, gram]) => [key, projectorOfRows(gram, OPTIONS)]));
    const lane = ForwardLane.launch(openCheckpoint().dir);
    try {
      await lane.ready();
      const solves = new ProjectorSolves(OPTIONS, lane);
      for (const [key, gram] of grams()) solves.add(key, gram);
      let here = 0;
      const solved = await solves.finish(() => void here++);
      // The lane took the first key at once; this thread took some of the rest.
      expect(here).toBeGreaterThan(0);
      expect(here).toBeLessThan(expected.size);
      expect([...solved.keys()].sort()).toEqual([...expected.keys()].sort());
      expect(solved.get('key0')).toBeUndefined();
      for (const [key, projector] of expected) {
        if (projector === undefined) continue;
        expect(bytes(solved.get(key)?.basis).equals(bytes(projector.basis))).toBe(true);
        expect(bytes(solved.get(key)?.sigma).equals(bytes(projector.sigma))).toBe(true);
      }
    } finally {
      await lane.close();
    }
  });

  it('solves everything here without a lane', async () => {
    const solves = new ProjectorSolves(OPTIONS);
    for (const [key, gram] of grams()) solves.add(key, gram);
    let here = 0;
    const solved = await solves.finish(() => void here++);
    // add() solved each key at once: nothing was left for finish().
    expect(here).toBe(0);
    expect(solved.size).toBe(6);
  });

  it('throws the lane\'s failure from finish()', async () => {
    const lane = ForwardLane.launch('/nonexistent/checkpoint');
    try {
      await expect(lane.ready()).rejects.toThrow(ForwardLaneError);
      const solves = new ProjectorSolves(OPTIONS, lane);
      for (const [key, gram] of grams()) solves.add(key, gram);
      await expect(solves.finish()).rejects.toThrow(/forward lane failed/);
    } finally {
      await lane.close();
    }
  });
});
