/**
 * A tiny checkpoint written, opened and loaded once per describe block on the wasm backend, and
 * removed after it: the setup the model-pass tests (AIM, LEWIS importance) share.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll } from 'vitest';
import { Checkpoint } from '../../io/checkpoint.ts';
import { initBackend } from '../../tensor/backend.ts';
import { loadCausalLM, type CausalLM } from '../causal-lm.ts';
import { writeTinyCheckpoint, type TinyModelOptions } from './tiny-checkpoint.ts';

export interface TinyModelFixture {
  readonly checkpoint: Checkpoint;
  readonly model: CausalLM;
}

/** Registers beforeAll/afterAll in the calling block; the returned object is usable inside its tests. */
export function useTinyModel(options: TinyModelOptions): TinyModelFixture {
  let loaded: { dir: string; checkpoint: Checkpoint; model: CausalLM } | undefined;
  beforeAll(async () => {
    await initBackend('wasm');
    const dir = await writeTinyCheckpoint(options);
    const checkpoint = await Checkpoint.open(dir);
    loaded = { dir, checkpoint, model: loadCausalLM(checkpoint) };
  });
  afterAll(async () => {
    if (loaded === undefined) return;
    await loaded.checkpoint.close();
    await rm(loaded.dir, { recursive: true, force: true });
  });
  const current = () => {
    if (loaded === undefined) throw new Error('the tiny model exists only inside the block\'s tests');
    return loaded;
  };
  return {
    get checkpoint() { return current().checkpoint; },
    get model() { return current().model; },
  };
}
