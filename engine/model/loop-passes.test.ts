/**
 * The loop against the plain model it repeats, on tiny checkpoints with the same weights: a
 * NanbeigeForCausalLM with one loop is its Llama layers exactly, and the first pass of a
 * two-pass model sees what the Llama model sees — its captures and linear-input means, tagged
 * pass 0, equal the Llama model's; those tagged pass 1 come from the second pass.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { initBackend } from '../tensor/backend.ts';
import type { LayerActivations } from './activations.ts';
import { loadCausalLM, type CausalLM } from './causal-lm.ts';
import type { LinearInputMeans } from './linear-inputs.ts';
import { writeTinyCheckpoint, type TinyModelOptions } from './testing/tiny-checkpoint.ts';

const WEIGHTS: TinyModelOptions = { family: 'llama', tied: false, seed: 31, hidden: 16, intermediate: 24, heads: 4, kvHeads: 2, headDim: 8, vocab: 40 };
const SEQUENCES = [[3, 17, 9, 30, 2, 11], [5, 8, 21, 1]];

describe('looped model vs the plain model it repeats', () => {
  const dirs: string[] = [];
  const checkpoints: Checkpoint[] = [];
  const open = async (options: TinyModelOptions): Promise<CausalLM> => {
    const dir = await writeTinyCheckpoint(options);
    dirs.push(dir);
    const checkpoint = await Checkpoint.open(dir);
    checkpoints.push(checkpoint);
    return loadCausalLM(checkpoint);
  };
  let llama: CausalLM;
  let once: CausalLM;
  let twice: CausalLM;

  beforeAll(async () => {
    await initBackend('wasm');
    llama = await open(WEIGHTS);
    once = await open({ ...WEIGHTS, loop: { numLoops: 1 } });
    twice = await open({ ...WEIGHTS, loop: { numLoops: 2 } });
  });

  afterAll(async () => {
    for (const c of checkpoints) await c.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('one loop gives the Llama model’s logits exactly; two loops do not', async () => {
    const ids = SEQUENCES[0] as number[];
    const plain = (await llama.forwardLogits(ids)).values;
    expect((await once.forwardLogits(ids)).values).toEqual(plain);
    const looped = (await twice.forwardLogits(ids)).values;
    expect(looped.some((v, i) => Math.abs(v - (plain[i] as number)) > 1e-3)).toBe(true);
  });

  it('captures are tagged by pass, and pass 0 is what the Llama model captures', async () => {
    const sequences = SEQUENCES.map((ids) => ({ ids, positions: ids.map((_, i) => i) }));
    const plain: LayerActivations[] = [];
    const looped: LayerActivations[] = [];
    await llama.captureActivations(sequences, (a) => void plain.push(a));
    await twice.captureActivations(sequences, (a) => void looped.push(a));
    const layers = twice.spec.numLayers;
    expect(looped).toHaveLength(2 * layers * SEQUENCES.length);
    expect(looped.map((a) => a.pass)).toEqual([...Array(layers * SEQUENCES.length).fill(0), ...Array(layers * SEQUENCES.length).fill(1)]);
    const key = (a: LayerActivations): string => `${a.layer}/${a.sequence}`;
    const byKey = new Map(plain.map((a) => [key(a), a]));
    for (const a of looped) {
      const same = byKey.get(key(a)) as LayerActivations;
      if (a.pass === 0) expect(a.attnInput).toEqual(same.attnInput);
      else expect(a.ffnInput).not.toEqual(same.ffnInput);
    }
  });

  it('linear-input means are tagged by pass, and pass 0 is what the Llama model measures', async () => {
    const plain: LinearInputMeans[] = [];
    const looped: LinearInputMeans[] = [];
    await llama.linearInputMeans(SEQUENCES, (m) => void plain.push(m));
    await twice.linearInputMeans(SEQUENCES, (m) => void looped.push(m));
    expect(looped).toHaveLength(2 * plain.length);
    const pass0 = looped.filter((m) => m.pass === 0);
    expect(pass0.map((m) => [m.layer, m.sequence])).toEqual(plain.map((m) => [m.layer, m.sequence]));
    pass0.forEach((m, i) => expect(m.means).toEqual((plain[i] as LinearInputMeans).means));
  });
});
