/**
 * DirectionalGradients.moved's reads, on a tiny untied Qwen3 checkpoint: the embedding lookup's
 * rows are the moved embedding's rows bit for bit (a whole Δ and a row Δ, rows asked twice and
 * rows no Δ has; read as rows from a checkpoint or from shared memory), a θ_I that reads no rows gives
 * moved weights that read none (the readers then read whole, not the whole tensor per block of rows),
 * a layer read into a lent array gives the values of a fresh read, a shared θ_I is never written, and a probe pass that reads rows only is the pass that reads the whole
 * embedding and lm_head (loss, sequence losses and every dot the same bits).
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { writeTinyCheckpoint } from '../model/testing/tiny-checkpoint.ts';
import { EMBED_NAME, LM_HEAD_NAME, type WeightSource } from '../model/weights.ts';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { initBackend } from '../tensor/backend.ts';
import type { TensorDelta } from './delta-store.ts';
import type { DirectionDeltas } from './direction-deltas.ts';
import { DirectionalGradients } from './directional-gradients.ts';
import { withSharedTensors } from './shared-weights.ts';

const VOCAB = 48;
const HIDDEN = 16;
const LAYER_TENSOR = 'model.layers.0.mlp.up_proj.weight';
const IDS = [5, 17, 3, 40, 17, 9, 47, 2];

/** Two Δ on the embedding (a row Δ on 17, 40, 0 and a whole one), one on lm_head and one on a layer tensor: four directions. */
function seededDeltas(checkpoint: Checkpoint): DirectionDeltas {
  const rng = new SeededRandom(3);
  const whole = (name: string, direction: number): TensorDelta => ({ direction, values: rng.normals(checkpoint.tensor(name).shape.reduce((a, b) => a * b, 1), 0.1) });
  const byName = new Map<string, TensorDelta[]>([
    [EMBED_NAME, [{ direction: 0, rows: Int32Array.from([17, 40, 0]), width: HIDDEN, values: rng.normals(3 * HIDDEN, 0.1) }, whole(EMBED_NAME, 1)]],
    [LM_HEAD_NAME, [whole(LM_HEAD_NAME, 2)]],
    [LAYER_TENSOR, [whole(LAYER_TENSOR, 3)]],
  ]);
  return {
    size: 4,
    directionsOf: (name) => (byName.get(name) ?? []).map((d) => d.direction),
    deltasOf: (name) => Promise.resolve(byName.get(name) ?? []),
  };
}

/** `source` without its rows reader: every read is a whole tensor, as before rows were read. */
function wholeReads(source: WeightSource): WeightSource {
  return { dir: source.dir, config: source.config, tensors: source.tensors, tensor: (name) => source.tensor(name), readFloat32: (name, into) => source.readFloat32(name, into) };
}

/** The checkpoint with its embedding held in shared memory, as a curvature worker holds θ_I's (pipeline/shared-weights.ts). */
async function sharedEmbedding(checkpoint: Checkpoint): Promise<{ source: WeightSource; shared: Float32Array }> {
  const values = await checkpoint.readFloat32(EMBED_NAME);
  const shared = new Float32Array(new SharedArrayBuffer(values.byteLength));
  shared.set(values);
  return { source: withSharedTensors(checkpoint, [{ name: EMBED_NAME, buffer: shared.buffer as SharedArrayBuffer }]), shared };
}

describe('DirectionalGradients.moved', () => {
  let dir: string;
  let checkpoint: Checkpoint;
  let deltas: DirectionDeltas;
  const steps = Float64Array.from([0.3, -0.02, 0.05, 0.7]);

  beforeAll(async () => {
    await initBackend('wasm');
    dir = await writeTinyCheckpoint({ family: 'qwen3', tied: false, seed: 41, hidden: HIDDEN, intermediate: 24, heads: 4, kvHeads: 2, headDim: 8, vocab: VOCAB, layers: 2 });
    checkpoint = await Checkpoint.open(dir);
    deltas = seededDeltas(checkpoint);
  });

  afterAll(async () => {
    await checkpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the embedding lookup\'s rows as the rows of the whole moved embedding, from a checkpoint and from shared memory, and reads no rows where θ_I reads none', async () => {
    const whole = await new DirectionalGradients(checkpoint, deltas).moved(steps, undefined).readFloat32(EMBED_NAME);
    const expected = IDS.flatMap((id) => [...whole.subarray(id * HIDDEN, (id + 1) * HIDDEN)]);
    const { source, shared } = await sharedEmbedding(checkpoint);
    const before = shared.slice();
    for (const instruct of [checkpoint, source]) {
      const rows = await new DirectionalGradients(instruct, deltas).moved(steps, new AbortController().signal).readRowsFloat32?.(EMBED_NAME, IDS);
      expect([...(rows as Float32Array)]).toEqual(expected);
    }
    expect(new DirectionalGradients(wholeReads(checkpoint), deltas).moved(steps, new AbortController().signal).readRowsFloat32).toBeUndefined();
    expect([...whole]).not.toEqual([...before]);
    expect(shared).toEqual(before);
  });

  it('moves a layer tensor in the array the reader lends, the values of a fresh read, and moves a shared tensor on a copy', async () => {
    const along = new DirectionalGradients(checkpoint, deltas).moved(steps, undefined);
    const fresh = await along.readFloat32(LAYER_TENSOR);
    const into = new Float32Array(fresh.length + 5);
    const lent = await along.readFloat32(LAYER_TENSOR, into);
    expect(lent.buffer).toBe(into.buffer);
    expect([...lent]).toEqual([...fresh]);
    expect([...fresh]).not.toEqual([...await checkpoint.readFloat32(LAYER_TENSOR)]);

    const { source, shared } = await sharedEmbedding(checkpoint);
    const before = shared.slice();
    const lentEmbedding = new Float32Array(shared.length);
    const embedding = await new DirectionalGradients(source, deltas).moved(steps, undefined).readFloat32(EMBED_NAME, lentEmbedding);
    expect(embedding.buffer).toBe(lentEmbedding.buffer);
    expect([...embedding]).toEqual([...await along.readFloat32(EMBED_NAME)]);
    expect(shared).toEqual(before);
  });

  it('makes a probe pass reading embedding and lm_head rows only that is bit-identical to one reading them whole', async () => {
    const batch = [{ ids: IDS }, { ids: [1, 2, 3, 17, 40, 41], targets: [0, 0, 1, 1, 1, 1] }];
    const signal = new AbortController().signal;
    const along = new DirectionalGradients(checkpoint, deltas);
    const moved = along.moved(steps, signal);
    const readRows = moved.readRowsFloat32?.bind(moved);
    if (readRows === undefined) throw new Error('the moved weights read no rows');
    const rowsRead: string[] = [];
    const counted: WeightSource = { ...wholeReads(moved), readRowsFloat32: (name, rows) => (rowsRead.push(name), readRows(name, rows)) };
    const rows = { pass: await along.pass(counted, batch, 1, signal) };
    const whole = { pass: await along.pass(wholeReads(moved), batch, 1, signal) };
    // each batch: its embedding rows, then the moved lm_head a chunk at a time and its label rows (model/head.ts onDemand)
    expect(rowsRead.filter((name) => name === EMBED_NAME)).toHaveLength(2);
    expect(rowsRead.every((name) => name === EMBED_NAME || name === LM_HEAD_NAME)).toBe(true);
    expect(rowsRead.filter((name) => name === LM_HEAD_NAME).length).toBeGreaterThanOrEqual(4);
    expect(rows.pass.loss).toBe(whole.pass.loss);
    expect(rows.pass.sequenceLosses).toEqual(whole.pass.sequenceLosses);
    expect([...rows.pass.dots]).toEqual([...whole.pass.dots]);
    expect(rows.pass.dots.every((d) => d !== 0)).toBe(true);
  });
});
