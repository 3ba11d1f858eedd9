/** Looking tokens up without the whole embedding: rows read from a real checkpoint or any source that reads rows, whole reads for other sources. */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import { loadCausalLM } from './causal-lm.ts';
import { embedSequences } from './embedding-rows.ts';
import { createContext, embedTokens, type ModelContext } from './forward.ts';
import { writeTinyCheckpoint } from './testing/tiny-checkpoint.ts';
import { EMBED_NAME, type WeightSource } from './weights.ts';

const SEQUENCES = [[4, 8, 15, 16, 23, 42], [7, 7, 0], [], [63]];

describe('embedSequences', () => {
  let dir: string;
  let checkpoint: Checkpoint;

  beforeAll(async () => {
    // The tiny checkpoint with its embedding stored as BF16, so rows go through the same widening as a whole read.
    dir = await writeTinyCheckpoint({ seed: 5, layers: 1, vocab: 64 });
    const source = await Checkpoint.open(dir);
    const tensors = [];
    for (const t of source.tensors.values()) tensors.push({ spec: { name: t.name, dtype: t.name === EMBED_NAME ? 'BF16' as const : t.dtype, shape: t.shape }, data: await source.readFloat32(t.name) });
    await source.close();
    await rm(join(dir, 'model.safetensors'));
    await writeSafetensors(join(dir, 'model.safetensors'), tensors);
    checkpoint = await Checkpoint.open(dir);
  });

  afterAll(async () => {
    await checkpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A context whose whole-embedding read fails: a lookup that reads rows never calls it. */
  function rowsOnly(spec = loadCausalLM(checkpoint).spec): ModelContext {
    return { ...createContext(checkpoint, spec), embedding: () => Promise.reject(new Error('the whole embedding was read')) };
  }

  it('reads a checkpoint\'s rows only, the same floats as a lookup in the whole widened embedding', async () => {
    expect(checkpoint.tensor(EMBED_NAME).dtype).toBe('BF16');
    const { hiddenSize } = loadCausalLM(checkpoint).spec;
    const whole = await checkpoint.readFloat32(EMBED_NAME);
    const looked = await embedSequences(rowsOnly(), SEQUENCES);
    expect(looked.map((rows) => [...rows])).toEqual(SEQUENCES.map((ids) => [...embedTokens(whole, ids, hiddenSize)]));
  });

  it('reads rows from any source that has a rows reader (a curvature probe\'s moved weights), never the whole embedding', async () => {
    const asked: (readonly number[])[] = [];
    const rowsSource: WeightSource = {
      dir: checkpoint.dir,
      config: checkpoint.config,
      tensors: checkpoint.tensors,
      tensor: (name) => checkpoint.tensor(name),
      readFloat32: () => Promise.reject(new Error('a whole tensor was read')),
      readRowsFloat32: (name, rows) => (asked.push([...Array.from(rows)]), checkpoint.readRowsFloat32(name, rows)),
    };
    const { spec } = loadCausalLM(checkpoint);
    const whole = await checkpoint.readFloat32(EMBED_NAME);
    const looked = await embedSequences({ ...createContext(rowsSource, spec), embedding: () => Promise.reject(new Error('the whole embedding was read')) }, SEQUENCES);
    expect(looked.map((rows) => [...rows])).toEqual(SEQUENCES.map((ids) => [...embedTokens(whole, ids, spec.hiddenSize)]));
    expect(asked).toEqual(SEQUENCES);
  });

  it('reads the whole embedding of a source that computes its tensors (an edited model), so its values are the ones used', async () => {
    const edited: WeightSource = {
      dir: checkpoint.dir,
      config: checkpoint.config,
      tensors: checkpoint.tensors,
      tensor: (name) => checkpoint.tensor(name),
      readFloat32: async (name) => (await checkpoint.readFloat32(name)).map((v) => v + 1),
    };
    const { spec } = loadCausalLM(checkpoint);
    const looked = await embedSequences(createContext(edited, spec), [[3]]);
    const row = (await checkpoint.readFloat32(EMBED_NAME)).subarray(3 * spec.hiddenSize, 4 * spec.hiddenSize);
    expect([...(looked[0] as Float32Array)]).toEqual([...row].map((v) => Math.fround(v + 1)));
  });

  it('refuses a token id outside the vocabulary, naming it and its position, as a lookup in the whole embedding does', async () => {
    const message = 'token id 64 at position 1 is outside the vocabulary (0…63)';
    await expect(embedSequences(rowsOnly(), [[0], [1, 64]])).rejects.toThrow(message);
    expect(() => embedTokens(new Float32Array(64 * loadCausalLM(checkpoint).spec.hiddenSize), [1, 64], loadCausalLM(checkpoint).spec.hiddenSize)).toThrow(message);
  });

  it('refuses an embedding whose shape is not the one config.json implies, as a whole read does', async () => {
    const spec = loadCausalLM(checkpoint).spec;
    const wrong = { ...spec, vocabSize: 65 };
    const lookup = embedSequences(rowsOnly(wrong), [[1]]);
    await expect(lookup).rejects.toBeInstanceOf(CheckpointError);
    await expect(lookup).rejects.toThrow(`has shape [64, ${spec.hiddenSize}] but config.json implies [65, ${spec.hiddenSize}]`);
    await expect(createContext(checkpoint, wrong).embedding()).rejects.toThrow(`has shape [64, ${spec.hiddenSize}] but config.json implies [65, ${spec.hiddenSize}]`);
  });
});
