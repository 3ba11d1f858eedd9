/**
 * ForwardLane on the committed tiny Qwen3-MoE checkpoint: a worker thread's readings of a batch
 * are the calling thread's, bit for bit (activations, Linear-input means, routing), delivered
 * layer by layer, from the embedding rows the batch brings (posted before the worker is up); a lane that cannot open its
 * checkpoint fails its start and every wait with a ForwardLaneError; a GSP solve posted behind a
 * batch comes back with the bits of this thread's, its answer apart from the batch's.
 */
import { describe, expect, it } from 'vitest';
import { GramAccumulator } from '../crane/gram-accumulator.ts';
import { projectorOfRows } from '../crane/gsp-projector.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { embedTokens } from '../model/forward.ts';
import { allTaps, forwardTapped } from '../model/tapped-forward.ts';
import { moeGolden, useMoeCheckpoint } from '../model/testing/moe-golden.ts';
import { ForwardLane, ForwardLaneError } from './forward-lane.ts';
import type { LaneRecord, LaneSequence } from './forward-lane-protocol.ts';
import { tapOf } from './forward-requests.ts';

const openCheckpoint = useMoeCheckpoint();

/** Each golden sequence with its embedding rows and all three readings. */
function laneBatch(embedding: Float32Array, hidden: number): LaneSequence[] {
  return moeGolden.sequences.map((ids, i) => ({
    ids,
    embedded: embedTokens(embedding, ids, hidden),
    reads: [
      { kind: 'activations', sequence: i, positions: [0, ids.length - 1] },
      { kind: 'means', sequence: i, statistic: 'abs' },
      { kind: 'routing', sequence: i },
    ],
  }));
}

describe('ForwardLane', () => {
  it('reads a batch in a worker thread exactly as this thread does, layer by layer', async () => {
    const model = loadCausalLM(openCheckpoint());
    const batch = laneBatch(await model.context.embedding(), model.spec.hiddenSize);
    const here: LaneRecord[][] = [];
    const layerRecords: LaneRecord[] = [];
    const sequences = batch.map((s, sequence) => ({ ids: s.ids, tap: allTaps(s.reads.map((read, request) => tapOf(s.ids, read, (record) => void layerRecords.push({ sequence, request, record })))) }));
    await forwardTapped(model.context, sequences, { onLayerDone: () => void here.push(layerRecords.splice(0)) });

    // Launched without waiting for its start: the batch waits in the worker until it is up.
    const lane = ForwardLane.launch(openCheckpoint().dir);
    try {
      const run = lane.run(batch);
      for (let layer = 0; layer < model.spec.numLayers; layer++) expect(await run.layer(layer, 0)).toEqual(here[layer]);
      await run.done();
    } finally {
      await lane.close();
    }
    // Every sequence gives activations and means at every layer, and routing at the sparse ones.
    expect(here.flat().filter((r) => r.record.kind === 'routing').length).toBeGreaterThan(0);
    expect(here.flat().filter((r) => r.record.kind === 'means')).toHaveLength(batch.length * model.spec.numLayers);
  });

  it('solves a GSP key posted behind a batch without mixing its answer into the batch\'s, and says when it computes', async () => {
    const model = loadCausalLM(openCheckpoint());
    const gram = new GramAccumulator(4);
    gram.addRows(Float32Array.of(1, 2, 0, 1, 0, 1, 3, 1, 2, 0, 0, 1, 5, 1, 1, 1, 0, 0, 2, 2));
    const expected = projectorOfRows(gram, { maxRank: 3, rankCut: 1e-5 });
    const lane = ForwardLane.launch(openCheckpoint().dir);
    try {
      expect(lane.computing).toBe(false);
      const run = lane.run(laneBatch(await model.context.embedding(), model.spec.hiddenSize));
      expect(lane.computing).toBe(true);
      const solved = lane.solve(gram.snapshot(), { maxRank: 3, rankCut: 1e-5 });
      for (let layer = 0; layer < model.spec.numLayers; layer++) expect((await run.layer(layer, 0)).length).toBeGreaterThan(0);
      await run.done();
      expect(lane.computing).toBe(false);
      const projector = await solved;
      expect(projector?.rank).toBe(expected?.rank);
      expect(Buffer.from((projector?.basis as Float32Array).buffer).equals(Buffer.from((expected?.basis as Float32Array).buffer))).toBe(true);
    } finally {
      await lane.close();
    }
  });

  it('fails with a ForwardLaneError when the worker cannot open the checkpoint, and so does a batch posted before', async () => {
    const model = loadCausalLM(openCheckpoint());
    const lane = ForwardLane.launch('/nonexistent/checkpoint');
    try {
      const run = lane.run(laneBatch(await model.context.embedding(), model.spec.hiddenSize));
      await expect(lane.ready()).rejects.toThrow(ForwardLaneError);
      await expect(run.layer(0, 0)).rejects.toThrow(/forward lane failed: .*nonexistent/);
    } finally {
      await lane.close();
    }
  });
});
