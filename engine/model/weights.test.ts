/**
 * readLayer on a real safetensors checkpoint: every tensor holds the stored values once the layer
 * is read, though on wasm they all pass through one reused read buffer (upload-buffer.ts), on
 * both backends, and with a weight source that ignores the buffer and hands out arrays of its own.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { initBackend } from '../tensor/backend.ts';
import { parseModelSpec } from './config.ts';
import { writeTinyCheckpoint } from './testing/tiny-checkpoint.ts';
import { disposeLayer, layerParamShapes, layerTensorName, readLayer, type WeightSource } from './weights.ts';

let dir: string;
let checkpoint: Checkpoint;

beforeAll(async () => {
  dir = await writeTinyCheckpoint({ layers: 2, hidden: 16, intermediate: 40, heads: 2, kvHeads: 1, headDim: 8, vocab: 32 });
  checkpoint = await Checkpoint.open(dir);
});

afterAll(async () => {
  await checkpoint.close();
  await rm(dir, { recursive: true, force: true });
  await initBackend('wasm');
});

describe.each(['wasm', 'cpu'] as const)('readLayer on %s', (backend) => {
  const sources: Record<string, () => WeightSource> = {
    'the checkpoint': () => checkpoint,
    'a source of fresh arrays': () => ({ dir: checkpoint.dir, config: checkpoint.config, tensors: checkpoint.tensors, tensor: (n) => checkpoint.tensor(n), readFloat32: (n) => checkpoint.readFloat32(n) }),
  };

  it.each(Object.keys(sources))('holds every stored tensor of both layers, read one after another, from %s', async (name) => {
    await initBackend(backend);
    const source = (sources[name] as () => WeightSource)();
    const spec = parseModelSpec(checkpoint.config, dir);
    const layers = [await readLayer(source, spec, 0), await readLayer(source, spec, 1)];
    try {
      for (const [layer, weights] of layers.entries()) {
        for (const [key, shape] of layerParamShapes(spec, layer)) {
          const held = weights.params[key];
          expect(held?.shape).toEqual(shape);
          expect(held?.dataSync()).toEqual(await checkpoint.readFloat32(layerTensorName(layer, key)));
        }
      }
    } finally {
      layers.forEach(disposeLayer);
    }
  });
});
