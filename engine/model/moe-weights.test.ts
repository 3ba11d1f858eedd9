/**
 * Expert layouts on real safetensors files: the committed tiny fused checkpoint
 * (testdata/qwen3_moe_fused) is rewritten with a changed expert tensor and must be refused with
 * the tensor's name; the split/fuse pair is checked as an exact round trip.
 */
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import { initBackend } from '../tensor/backend.ts';
import { loadCausalLM } from './causal-lm.ts';
import type { MoeSpec } from './moe-config.ts';
import { fuseExpertArrays, splitFusedExpert } from './moe-weights.ts';

const FUSED = join(import.meta.dirname, 'testdata', 'qwen3_moe_fused');
const LAYER = 'model.layers.1.';
let work: string;

beforeAll(async () => {
  await initBackend('wasm');
  work = await mkdtemp(join(tmpdir(), 'crane-moe-layout-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A copy of the fused checkpoint with `change` applied to its tensor list; the forward's error. */
async function forwardError(name: string, change: (tensors: { name: string; shape: number[]; data: Float32Array }[]) => void): Promise<string> {
  const source = await Checkpoint.open(FUSED);
  const tensors = await Promise.all([...source.tensors.values()].map(async (t) => ({ name: t.name, shape: [...t.shape], data: await source.readFloat32(t.name) })));
  await source.close();
  change(tensors);
  const dir = join(work, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  await copyFile(join(FUSED, 'config.json'), join(dir, 'config.json'));
  await writeSafetensors(join(dir, 'model.safetensors'), tensors.map((t) => ({ spec: { name: t.name, dtype: 'F32', shape: t.shape }, data: t.data })));
  const checkpoint = await Checkpoint.open(dir);
  try {
    await loadCausalLM(checkpoint).forwardLogits([1, 2, 3]);
    return '';
  } catch (error) {
    return (error as Error).message;
  } finally {
    await checkpoint.close();
  }
}

describe('expert layouts', () => {
  it('refuses a tensor of another expert layout under mlp.experts., by name', async () => {
    const message = await forwardError('stray', (tensors) => tensors.push({ name: `${LAYER}mlp.experts.gate_proj`, shape: [6, 12, 32], data: new Float32Array(6 * 12 * 32) }));
    expect(message).toMatch(/tensor "model\.layers\.1\.mlp\.experts\.gate_proj": is not part of the fused expert layout/);
  });

  it('refuses a fused tensor stored transposed, by name and shape', async () => {
    const message = await forwardError('transposed', (tensors) => {
      const t = tensors.find((x) => x.name === `${LAYER}mlp.experts.gate_up_proj`);
      if (t !== undefined) t.shape = [6, 32, 24];
    });
    expect(message).toMatch(/tensor "model\.layers\.1\.mlp\.experts\.gate_up_proj": has shape \[6, 32, 24\] but config\.json implies \[6, 24, 32\]/);
  });

  it('names the missing router', async () => {
    const message = await forwardError('no-router', (tensors) => tensors.splice(tensors.findIndex((x) => x.name === `${LAYER}mlp.gate.weight`), 1));
    expect(message).toMatch(/model\.layers\.1\.mlp\.gate\.weight/);
  });

  it('split then fuse is the identity (gate rows before up rows)', () => {
    const moe: MoeSpec = { numExperts: 3, expertsPerToken: 1, normTopkProb: false, expertIntermediateSize: 2, mlpOnlyLayers: [], decoderSparseStep: 1 };
    const gateUp = Float32Array.from({ length: 3 * 4 * 5 }, (_, i) => i);
    const down = Float32Array.from({ length: 3 * 5 * 2 }, (_, i) => 1000 + i);
    expect(Array.from(splitFusedExpert(gateUp, down, moe, 5, 1).up_proj)).toEqual(Array.from({ length: 10 }, (_, i) => 30 + i));
    const fused = fuseExpertArrays(moe, 5, (e, projection) => splitFusedExpert(gateUp, down, moe, 5, e)[projection]);
    expect(fused.get('mlp.experts.gate_up_proj')).toEqual(gateUp);
    expect(fused.get('mlp.experts.down_proj')).toEqual(down);
  });
});
