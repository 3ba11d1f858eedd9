import { describe, expect, it } from 'vitest';
import { sumOverPasses } from '../model/loop-grad-sums.ts';
import { keepPassParts, passPartName, splitPassParts } from './pass-gradients.ts';

const NAME = 'model.layers.0.mlp.up_proj.weight';
// parts in the backward's order: the last pass walks down first
const parts = [
  { pass: 1, layer: 0, grads: new Map([[NAME, Float32Array.of(1e8, 3, -0.1)]]) },
  { pass: 1, layer: 1, grads: new Map([[NAME, Float32Array.of(2, 2, 2)]]) },
  { pass: 0, layer: 1, grads: new Map([[NAME, Float32Array.of(5, 6, 7)]]) },
  { pass: 0, layer: 0, grads: new Map([[NAME, Float32Array.of(1, -1e8, 0.7)]]) },
];

async function collect(feed: (pass: number, layer: number, grads: Map<string, Float32Array>) => void | Promise<void>): Promise<void> {
  for (const part of parts) await feed(part.pass, part.layer, new Map([...part.grads].map(([n, g]) => [n, Float32Array.from(g)])));
}

describe('keepPassParts', () => {
  it('hands one map per layer: the sum bit for bit as sumOverPasses (lossAndLayerGrads) gives it, and each pass under its own name', async () => {
    const kept = new Map<number, Map<string, Float32Array>>();
    const summed = new Map<number, Map<string, Float32Array>>();
    await collect(keepPassParts(2, (layer, grads) => void kept.set(layer, grads)));
    await collect(sumOverPasses(2, (layer, grads) => void summed.set(layer, grads)));
    expect([...kept.keys()]).toEqual([1, 0]);
    for (const layer of [0, 1]) {
      const split = splitPassParts(kept.get(layer) as Map<string, Float32Array>);
      expect(split.combined.get(NAME)).toEqual(summed.get(layer)?.get(NAME));
      expect(split.passes.map((p) => [...p.keys()])).toEqual([[NAME], [NAME]]);
      for (const pass of [0, 1]) {
        const fed = parts.find((p) => p.pass === pass && p.layer === layer)?.grads.get(NAME);
        expect(split.passes[pass]?.get(NAME)).toEqual(fed);
      }
    }
  });

  it('passes a model without a loop straight through: the same maps, no part names', async () => {
    const seen: Map<string, Float32Array>[] = [];
    const onPart = keepPassParts(1, (_layer, grads) => void seen.push(grads));
    const grads = new Map([[NAME, Float32Array.of(1, 2)]]);
    await onPart(0, 3, grads);
    expect(seen).toEqual([grads]);
    expect(seen[0]).toBe(grads);
    expect(splitPassParts(grads)).toEqual({ combined: grads, passes: [] });
  });

  it('names parts so that splitting finds them back', () => {
    expect(passPartName(1, NAME)).toBe(`pass1:${NAME}`);
    expect(splitPassParts(new Map([[passPartName(1, NAME), Float32Array.of(4)]])).passes[1]?.get(NAME)).toEqual(Float32Array.of(4));
  });
});
