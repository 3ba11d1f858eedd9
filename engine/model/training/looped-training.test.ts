/**
 * Training a looped NanbeigeForCausalLM (the looped demo pair) with the trainer's objective,
 * TrainableModel.loss: the whole-model graph runs every pass over the same parameters
 * (loop-passes.ts throughPasses), so the gradient AdamW steps on is each weight's sum over the
 * passes. Checked on a tiny looped model, with and without model.norm between the passes:
 * autodiff against central finite differences of the same objective; against the analysis
 * runtime's per-pass parts (lossAndPassGrads) summed, on the checkpoint the trainer writes; and
 * a few AdamW steps lower the loss.
 */
import * as tf from '@tensorflow/tfjs-core';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../../io/checkpoint.ts';
import { writeCheckpoint } from '../../io/checkpoint-writer.ts';
import { withTempDir } from '../../io/testing/fixtures.ts';
import { SeededRandom } from '../../protocol/seeded-random.ts';
import { initBackend } from '../../tensor/backend.ts';
import { loadCausalLM } from '../causal-lm.ts';
import type { LossSequence } from '../layer-grads.ts';
import { sumParts } from '../loop-grad-sums.ts';
import { trainPhase } from './train-phase.ts';
import { TrainableModel } from './trainable-model.ts';
import { expectLargestGradientMatches } from '../testing/largest-gradient-check.ts';

const VOCAB = 23;

/** head_dim 8 ≠ hidden 12 / 2 heads, untied lm_head, as Nanbeige4.2 has them. */
function loopedConfig(skipLoopFinalNorm: boolean): Record<string, unknown> {
  return {
    architectures: ['NanbeigeForCausalLM'], model_type: 'nanbeige', hidden_size: 12, intermediate_size: 16, num_hidden_layers: 2, num_loops: 2,
    skip_loop_final_norm: skipLoopFinalNorm, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 8, vocab_size: VOCAB, rms_norm_eps: 1e-5,
    rope_theta: 10000, tie_word_embeddings: false, hidden_act: 'silu', attention_bias: false, mlp_bias: false, eos_token_id: 0,
  };
}

beforeAll(async () => {
  await initBackend('wasm');
});

function batchOf(seed: number, sequences: number, length: number): LossSequence[] {
  const rng = new SeededRandom(seed);
  return Array.from({ length: sequences }, () => ({ ids: Array.from({ length }, () => rng.int(0, VOCAB - 1)), targets: Array.from({ length }, () => (rng.chance(0.7) ? 1 : 0)) }));
}

/** The trainer's gradient of every parameter, by checkpoint name, and the loss. */
function trainerGrads(model: TrainableModel, batch: readonly LossSequence[]): { loss: number; grads: Map<string, Float32Array> } {
  const { value, grads } = tf.variableGrads(() => model.loss(batch), [...model.params.values()]);
  const byName = new Map([...model.params].map(([name, v]) => [name, Float32Array.from((grads[v.name] as tf.Tensor).dataSync())]));
  const loss = value.dataSync()[0] as number;
  tf.dispose([value, ...Object.values(grads)]);
  return { loss, grads: byName };
}

/** max |a − b| / max(1e-3, max |b|). */
function relativeDiff(a: Float32Array, b: Float32Array): number {
  let diff = 0;
  let scale = 1e-3;
  for (let i = 0; i < b.length; i++) {
    diff = Math.max(diff, Math.abs((a[i] as number) - (b[i] as number)));
    scale = Math.max(scale, Math.abs(b[i] as number));
  }
  return diff / scale;
}

describe.each([false, true])('training a looped model (skip_loop_final_norm %s)', (skip) => {
  it('steps on the gradient of its objective: autodiff matches central finite differences for attention, MLP, norms, embedding and lm_head', () => {
    const model = TrainableModel.random(loopedConfig(skip), 7, 0.4);
    expect(model.spec.loop).toEqual({ numLoops: 2, normBetweenPasses: !skip });
    const batch = batchOf(3, 2, 9);
    const { loss, grads } = trainerGrads(model, batch);
    const lossAt = () => tf.tidy(() => model.loss(batch).dataSync()[0] as number);
    expect(loss).toBeCloseTo(lossAt(), 6);
    const checked = ['model.layers.0.self_attn.q_proj.weight', 'model.layers.1.self_attn.v_proj.weight', 'model.layers.0.mlp.down_proj.weight', 'model.layers.1.mlp.gate_proj.weight',
      'model.layers.0.input_layernorm.weight', 'model.norm.weight', 'model.embed_tokens.weight', 'lm_head.weight'];
    for (const name of checked) {
      const variable = model.params.get(name) as tf.Variable;
      expectLargestGradientMatches(name, variable, grads.get(name) as Float32Array, lossAt);
    }
    model.dispose();
  });

  it('its gradient is the sum of the analysis runtime’s per-pass parts on the checkpoint it writes, and the passes differ', async () => {
    const config = loopedConfig(skip);
    const model = TrainableModel.random(config, 5, 0.4);
    const batch = batchOf(4, 2, 11);
    const trained = trainerGrads(model, batch);
    await withTempDir(async (root) => {
      const dir = join(root, 'looped');
      const tensors = model.tensors();
      const byName = new Map(tensors.map((t) => [t.spec.name, t.data]));
      await writeCheckpoint(dir, {
        specs: tensors.map((t) => t.spec),
        produce: async (spec) => byName.get(spec.name) as Float32Array,
        writeSideFiles: (work) => writeFile(join(work, 'config.json'), JSON.stringify(config)),
      });
      const checkpoint = await Checkpoint.open(dir);
      try {
        const parts: Map<string, Float32Array>[] = [new Map(), new Map()];
        const { loss } = await loadCausalLM(checkpoint).lossAndPassGrads(batch, (pass, _layer, grads) => void grads.forEach((g, name) => (parts[pass] as Map<string, Float32Array>).set(name, g)), { headGrads: true });
        expect(loss).toBeCloseTo(trained.loss, 5);
        const summed = sumParts(parts);
        expect([...summed.keys()].sort()).toEqual([...trained.grads.keys()].sort());
        for (const [name, g] of trained.grads) expect(relativeDiff(summed.get(name) as Float32Array, g), name).toBeLessThan(1e-4);
        const weight = 'model.layers.0.mlp.up_proj.weight';
        expect(relativeDiff(parts[0]?.get(weight) as Float32Array, parts[1]?.get(weight) as Float32Array)).toBeGreaterThan(1e-2);
      } finally {
        await checkpoint.close();
      }
    });
    model.dispose();
  });
});

describe('trainPhase on a looped model', () => {
  it('lowers the loss over a few AdamW steps and moves the weights both passes share', () => {
    const model = TrainableModel.random(loopedConfig(false), 11);
    const shared = model.params.get('model.layers.1.self_attn.o_proj.weight') as tf.Variable;
    const before = shared.dataSync().slice();
    const losses: number[] = [];
    trainPhase(model, batchOf(5, 4, 16), { steps: 30, batchWindows: 4, peakLearningRate: 1e-2, warmupSteps: 3, seed: 1, onStep: (_, loss) => losses.push(loss) });
    expect(losses.at(-1)).toBeLessThan((losses[0] as number) - 0.5);
    expect(Math.max(...Array.from(shared.dataSync(), (x, i) => Math.abs(x - (before[i] as number))))).toBeGreaterThan(1e-3);
    model.dispose();
  });
});
