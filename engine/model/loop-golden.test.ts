/**
 * Per-pass gradients of the looped runtime against the float64 reference
 * (tools/reference/reference_forward.py pass_gradient_file) on the committed tiny looped
 * checkpoints: every (pass, tensor) part, the order the parts stream in, and that the parts sum
 * to the reference's gradient and to what lossAndLayerGrads reports; and the whole-model graph
 * (whole-model.ts, what small models train with) looped the same way. Logits, losses, captures
 * tagged by pass, greedy decoding with the per-(pass, layer) cache and the summed gradients are
 * in golden.test.ts, which runs every committed checkpoint.
 */
import * as tf from '@tensorflow/tfjs-core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { SafetensorsFile } from '../io/safetensors-reader.ts';
import { initBackend } from '../tensor/backend.ts';
import { loadCausalLM, type CausalLM } from './causal-lm.ts';
import { argmax } from './decode.ts';
import { HEAD_GRADS_LAYER, type LossSequence } from './layer-grads.ts';
import { sumParts } from './loop-grad-sums.ts';
import { wholeGraphGrads } from './testing/whole-graph.ts';

const TESTDATA = join(import.meta.dirname, 'testdata');

interface LoopGolden {
  readonly sequences: number[][];
  readonly target_masks: number[][];
  readonly num_loops: number;
  readonly batch_masked_loss: number;
}

/** max |got − want| / max(1, max |want|): the tolerance scale of tools/reference/README.md. */
function scaledDiff(got: Float32Array, want: Float32Array): number {
  expect(got.length).toBe(want.length);
  let diff = 0;
  let scale = 1;
  for (let i = 0; i < want.length; i++) {
    diff = Math.max(diff, Math.abs((got[i] as number) - (want[i] as number)));
    scale = Math.max(scale, Math.abs(want[i] as number));
  }
  return diff / scale;
}

beforeAll(async () => {
  await initBackend('wasm');
});

describe.each(['nanbeige_looped', 'nanbeige_skipnorm'])('per-pass gradients: %s', (name) => {
  const dir = join(TESTDATA, name);
  const golden = JSON.parse(readFileSync(join(dir, 'golden.json'), 'utf8')) as LoopGolden;
  const batch: LossSequence[] = golden.sequences.map((ids, s) => ({ ids, targets: golden.target_masks[s] as number[] }));
  let checkpoint: Checkpoint;
  let model: CausalLM;
  /** `pass{p}.{tensor}` → part, the reference's naming. */
  const parts = new Map<string, Float32Array>();
  const order: [number, number][] = [];
  let tensorsLeft = 0;

  beforeAll(async () => {
    checkpoint = await Checkpoint.open(dir);
    model = loadCausalLM(checkpoint);
    const before = tf.memory().numTensors;
    await model.lossAndPassGrads(batch, (pass, layer, grads) => {
      order.push([pass, layer]);
      for (const [tensor, g] of grads) parts.set(`pass${pass}.${tensor}`, g);
    }, { headGrads: true });
    tensorsLeft = tf.memory().numTensors - before;
  });

  afterAll(async () => {
    await checkpoint.close();
  });

  it('streams every (pass, layer) part, the last pass first, then each pass’s head part, and keeps no tensors', () => {
    const passes = golden.num_loops;
    const layers = model.spec.numLayers;
    expect(model.spec.loop?.numLoops).toBe(passes);
    const want: [number, number][] = [];
    for (let pass = passes - 1; pass >= 0; pass--) for (let layer = layers - 1; layer >= 0; layer--) want.push([pass, layer]);
    for (let pass = passes - 1; pass >= 0; pass--) want.push([pass, HEAD_GRADS_LAYER]);
    expect(order).toEqual(want);
    expect(tensorsLeft).toBe(0);
  });

  it('every part matches the float64 reference’s part (autograd through per-pass weight copies)', async () => {
    const want = await SafetensorsFile.readAllFloat32(join(dir, 'pass_grads.safetensors'));
    expect([...parts.keys()].sort()).toEqual([...want.keys()].sort());
    let worst = 0;
    for (const [key, g] of want) {
      const diff = scaledDiff(parts.get(key) as Float32Array, g);
      expect(diff, key).toBeLessThan(1e-4);
      worst = Math.max(worst, diff);
    }
    console.info(`[${name}] ${want.size} per-pass parts: max |part − golden| / max(1, max|golden|) = ${worst.toExponential(2)}`);
  });

  it('the parts sum to the reference gradient and to what lossAndLayerGrads reports', async () => {
    const byPass = Array.from({ length: golden.num_loops }, (_, pass) => new Map([...parts].filter(([k]) => k.startsWith(`pass${pass}.`)).map(([k, g]) => [k.slice(k.indexOf('.') + 1), g])));
    const sums = sumParts(byPass);
    const reference = await SafetensorsFile.readAllFloat32(join(dir, 'grads.safetensors'));
    expect([...sums.keys()].sort()).toEqual([...reference.keys()].sort());
    for (const [tensor, g] of reference) expect(scaledDiff(sums.get(tensor) as Float32Array, g), tensor).toBeLessThan(1e-4);
    const summed = new Map<string, Float32Array>();
    await model.lossAndLayerGrads(batch, (_layer, grads) => void grads.forEach((g, n) => summed.set(n, g)), { headGrads: true });
    for (const [tensor, g] of summed) expect(scaledDiff(g, sums.get(tensor) as Float32Array), tensor).toBeLessThan(1e-6);
  });

  it('one whole-graph autodiff pass over every pass gives the reference loss and gradients', async () => {
    const whole = await wholeGraphGrads(checkpoint, model.spec, batch);
    const reference = await SafetensorsFile.readAllFloat32(join(dir, 'grads.safetensors'));
    expect(Math.abs(whole.loss - golden.batch_masked_loss)).toBeLessThan(1e-4);
    expect([...whole.grads.keys()].sort()).toEqual([...reference.keys()].sort());
    for (const [tensor, g] of reference) expect(scaledDiff(whole.grads.get(tensor) as Float32Array, g), tensor).toBeLessThan(1e-4);
  });

  it('greedy decoding with the per-(pass, layer) KV cache picks the full forward’s argmax at every step', async () => {
    const prompt = golden.sequences[1] as number[];
    const { tokens } = await model.greedyDecode(prompt, { maxNewTokens: 6, stopTokenIds: [] });
    expect(tokens).toHaveLength(6);
    for (let step = 0; step < tokens.length; step++) {
      const context = [...prompt, ...tokens.slice(0, step)];
      const logits = await model.forwardLogits(context, [context.length - 1]);
      expect(argmax(logits.values), `step ${step}`).toBe(tokens[step]);
    }
  });

  it('the two passes pull differently: no part is a copy of another pass’s', () => {
    const layerTensor = 'model.layers.0.mlp.down_proj.weight';
    const first = parts.get(`pass0.${layerTensor}`) as Float32Array;
    const last = parts.get(`pass${golden.num_loops - 1}.${layerTensor}`) as Float32Array;
    expect(scaledDiff(first, last)).toBeGreaterThan(1e-3);
  });
});
