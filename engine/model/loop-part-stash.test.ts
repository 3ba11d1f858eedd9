/**
 * The stash a looped backward keeps gradient parts in until their layer's pass 0 arrives: parts
 * past the hold limit go to disk and come back bit for bit, in arrival order, and the files go
 * away; lossAndLayerGrads on the committed tiny looped checkpoint gives the same sums bit for bit
 * whether every waiting part stays in memory or every one is spilled.
 */
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { initBackend } from '../tensor/backend.ts';
import { loadCausalLM } from './causal-lm.ts';
import type { LossSequence } from './layer-grads.ts';
import { sumOverPasses } from './loop-grad-sums.ts';
import { PassPartStash } from './loop-part-stash.ts';

const spillDirs = async () => (await readdir(tmpdir())).filter((name) => name.startsWith('crane-pass-parts-'));
const part = (...values: number[]) => new Map([['b', Float32Array.of(...values)], ['a', Float32Array.of(values.length)]]);

describe('PassPartStash', () => {
  it('keeps parts in memory up to the hold limit, spills the rest, and gives every part back in arrival order', async () => {
    // 12 bytes per part: the first fits a 16-byte hold, the next ones do not
    const stash = new PassPartStash(3, 16);
    const before = await spillDirs();
    expect(await stash.add(2, 0, part(1e-30, 3))).toBeUndefined();
    expect(await stash.add(2, 1, part(-7.5, 1e30))).toBeUndefined();
    expect(await stash.add(1, 1, part(0.1, 0.2))).toBeUndefined();
    expect(stash.bytesHeld).toBe(12);
    expect(stash.partsOnDisk).toBe(2);
    expect((await spillDirs()).length).toBe(before.length + 1);
    const layer1 = await stash.add(0, 1, part(4, 5));
    expect(layer1?.map((p) => p.pass)).toEqual([2, 1, 0]);
    expect(layer1?.map((p) => [...p.grads.keys()])).toEqual([['b', 'a'], ['b', 'a'], ['b', 'a']]);
    expect(layer1?.map((p) => p.grads.get('b'))).toEqual([Float32Array.of(-7.5, 1e30), Float32Array.of(0.1, 0.2), Float32Array.of(4, 5)]);
    expect(stash.partsOnDisk).toBe(0);
    await stash.release();
    expect(await spillDirs()).toEqual(before);
  });

  it('spills nothing when everything fits', async () => {
    const stash = new PassPartStash(2, 1 << 20);
    await stash.add(1, 0, part(1));
    expect(stash.partsOnDisk).toBe(0);
    expect((await stash.add(0, 0, part(2)))?.map((p) => p.grads.get('b'))).toEqual([Float32Array.of(1), Float32Array.of(2)]);
    await stash.release();
  });
});

describe('the looped backward with a spilling stash', () => {
  let checkpoint: Checkpoint;

  beforeAll(async () => {
    await initBackend('wasm');
    checkpoint = await Checkpoint.open(join(import.meta.dirname, 'testdata', 'nanbeige_looped'));
  });

  afterAll(() => checkpoint.close());

  it('sums every layer bit for bit as the in-memory stash does, and leaves no file behind', async () => {
    const model = loadCausalLM(checkpoint);
    const batch: LossSequence[] = [{ ids: [3, 9, 4, 1, 7, 2] }, { ids: [5, 5, 8, 2] }];
    const inMemory = new Map<string, Float32Array>();
    await model.lossAndLayerGrads(batch, (_layer, grads) => void grads.forEach((g, n) => inMemory.set(n, g)));
    const spilled = new Map<string, Float32Array>();
    const before = await spillDirs();
    await model.lossAndPassGrads(batch, sumOverPasses(2, (_layer, grads) => void grads.forEach((g, n) => spilled.set(n, g)), 0));
    expect(await spillDirs()).toEqual(before);
    expect([...spilled.keys()]).toEqual([...inMemory.keys()]);
    for (const [name, grad] of inMemory) expect(spilled.get(name), name).toEqual(grad);
  });
});
