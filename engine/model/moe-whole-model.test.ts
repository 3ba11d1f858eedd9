/**
 * The whole-model graph (whole-model.ts: what small models such as the demo pair train with)
 * differentiates through the MoE block too: on the per-expert tiny MoE checkpoint, one tf.grads
 * over every parameter gives the float64 reference's loss and gradients.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { SafetensorsFile } from '../io/safetensors-reader.ts';
import { initBackend } from '../tensor/backend.ts';
import { parseModelSpec } from './config.ts';
import { wholeGraphGrads } from './testing/whole-graph.ts';

const DIR = join(import.meta.dirname, 'testdata', 'qwen3_moe_experts');
const golden = JSON.parse(readFileSync(join(DIR, 'golden.json'), 'utf8')) as { sequences: number[][]; target_masks: number[][]; batch_masked_loss: number };
let checkpoint: Checkpoint;

beforeAll(async () => {
  await initBackend('wasm');
  checkpoint = await Checkpoint.open(DIR);
});

afterAll(() => checkpoint.close());

describe('whole-model graph on Qwen3-MoE', () => {
  it('matches the float64 loss and every gradient', async () => {
    const batch = golden.sequences.map((ids, s) => ({ ids, targets: golden.target_masks[s] as number[] }));
    const { loss, grads } = await wholeGraphGrads(checkpoint, parseModelSpec(checkpoint.config, DIR), batch);
    expect(Math.abs(loss - golden.batch_masked_loss)).toBeLessThan(1e-4);
    const want = await SafetensorsFile.open(join(DIR, 'grads.safetensors'));
    try {
      expect([...grads.keys()].sort()).toEqual([...want.tensors.keys()].sort());
      for (const name of want.tensors.keys()) {
        const w = await want.readFloat32(name);
        const g = grads.get(name) as Float32Array;
        const scale = Math.max(1, ...Array.from(w, Math.abs));
        const diff = Math.max(...Array.from(w, (v, i) => Math.abs((g[i] as number) - v)));
        expect(diff, name).toBeLessThan(1e-4 * scale);
      }
    } finally {
      await want.close();
    }
  });
});
