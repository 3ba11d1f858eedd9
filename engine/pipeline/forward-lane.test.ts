/**
 * ForwardLane on the committed tiny Qwen3-MoE checkpoint: a worker thread's readings of a batch
 * are the calling thread's, bit for bit (activations, Linear-input means, routing), delivered
 * layer by layer, from the embedding rows the batch brings (posted before the worker is up); a lane that cannot open its
 * checkpoint fails its start and every wait with a ForwardLaneError.
 */
import { describe, expect, it } from 'vitest';
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
