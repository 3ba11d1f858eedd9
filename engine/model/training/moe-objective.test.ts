/**
 * MoE training on a tiny Qwen3-MoE: the gradient AdamW steps on (cross-entropy + load balancing,
 * through the hand-written expert backward and the router's softmax) agrees with central finite
 * differences of the same objective for every kind of parameter, and a few steps lower the loss.
 */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { SeededRandom } from '../../protocol/seeded-random.ts';
import { initBackend } from '../../tensor/backend.ts';
import { routeTokens } from '../moe-routing.ts';
import type { LossSequence } from '../layer-grads.ts';
import { loadBalancingLoss, MoeObjective } from './moe-objective.ts';
import { trainPhase } from './train-phase.ts';
import { TrainableModel } from './trainable-model.ts';
import { expectLargestGradientMatches } from '../testing/largest-gradient-check.ts';

const VOCAB = 23;
const CONFIG = {
  architectures: ['Qwen3MoeForCausalLM'], model_type: 'qwen3_moe', hidden_size: 12, intermediate_size: 16, num_hidden_layers: 2,
  num_attention_heads: 2, num_key_value_heads: 1, head_dim: 6, vocab_size: VOCAB, rms_norm_eps: 1e-6, rope_theta: 10000,
  tie_word_embeddings: true, hidden_act: 'silu', attention_bias: false, eos_token_id: 0,
  num_experts: 4, num_experts_per_tok: 2, norm_topk_prob: true, moe_intermediate_size: 5, decoder_sparse_step: 1, mlp_only_layers: [],
};

beforeAll(async () => {
  await initBackend('wasm');
});

function batchOf(seed: number, sequences: number, length: number): LossSequence[] {
  const rng = new SeededRandom(seed);
  return Array.from({ length: sequences }, () => ({ ids: Array.from({ length }, () => rng.int(0, VOCAB - 1)), targets: Array.from({ length }, () => (rng.chance(0.7) ? 1 : 0)) }));
}

describe('loadBalancingLoss', () => {
  it('is k at a uniform router and grows when the chosen experts also hold the probability', () => {
    tf.tidy(() => {
      const f = tf.tensor2d(new SeededRandom(1).normals(6 * 3, 1), [6, 3]);
      const moe = { numExperts: 4, expertsPerToken: 2, normTopkProb: true, expertIntermediateSize: 1, mlpOnlyLayers: [], decoderSparseStep: 1 };
      const uniform = tf.zeros<tf.Rank.R2>([3, 4]);
      const routedEvenly = routeTokens(Float32Array.from({ length: 24 }, (_, i) => [0.4, 0.4, 0.1, 0.1, 0.1, 0.1, 0.4, 0.4][i % 8] as number), 6, moe);
      expect(loadBalancingLoss(f, uniform, routedEvenly).dataSync()[0]).toBeCloseTo(2, 5);
      // Every token sent to experts 0 and 1 by a router that gives them nearly all the probability: E·(1·P0 + 1·P1) ≈ 4.
      const skewed = tf.tensor2d([[5, 5, -5, -5], [5, 5, -5, -5], [5, 5, -5, -5]]);
      const collapsed = routeTokens(Float32Array.from({ length: 24 }, (_, i) => (i % 4 < 2 ? 0.45 : 0.05)), 6, moe);
      const value = loadBalancingLoss(tf.ones([6, 3]), skewed, collapsed).dataSync()[0] as number;
      expect(value).toBeGreaterThan(3.9);
      expect(value).toBeLessThanOrEqual(4);
    });
  });
});

describe('MoeObjective', () => {
  it('refuses a dense config', () => {
    const dense = TrainableModel.random({ ...CONFIG, architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3' }, 1);
    expect(() => new MoeObjective(dense, 0.01)).toThrow(/needs a Qwen3-MoE config \(got Qwen3ForCausalLM\)/);
    dense.dispose();
  });

  it('steps on the gradient of its objective: autodiff matches central finite differences for router, experts, attention, norms and embeddings', () => {
    const model = TrainableModel.random(CONFIG, 7, 0.4);
    const objective = new MoeObjective(model, 0.5);
    const batch = batchOf(3, 2, 9);
    const { value, grads } = tf.variableGrads(() => objective.loss(batch), [...model.params.values()]);
    const lossAt = () => tf.tidy(() => objective.loss(batch).dataSync()[0] as number);
    expect(value.dataSync()[0]).toBeCloseTo(lossAt(), 6);
    const checked = ['model.layers.0.mlp.gate.weight', 'model.layers.1.mlp.gate.weight', 'model.layers.1.mlp.experts.2.gate_proj.weight', 'model.layers.0.mlp.experts.1.up_proj.weight',
      'model.layers.1.mlp.experts.3.down_proj.weight', 'model.layers.0.self_attn.q_proj.weight', 'model.layers.1.post_attention_layernorm.weight', 'model.embed_tokens.weight'];
    for (const name of checked) {
      const variable = model.params.get(name) as tf.Variable;
      expectLargestGradientMatches(name, variable, (grads[variable.name] as tf.Tensor).dataSync(), lossAt);
    }
    tf.dispose([value, ...Object.values(grads)]);
    model.dispose();
  });

  it('lowers the loss over a few AdamW steps, moves the router and counts every routed token', () => {
    const model = TrainableModel.random(CONFIG, 11);
    const objective = new MoeObjective(model, 0.01);
    const router = model.params.get('model.layers.1.mlp.gate.weight') as tf.Variable;
    const routerBefore = router.dataSync().slice();
    const windows = batchOf(5, 4, 16);
    const losses: number[] = [];
    trainPhase(objective, windows, { steps: 30, batchWindows: 4, peakLearningRate: 1e-2, warmupSteps: 3, seed: 1, onStep: (_, loss) => losses.push(loss) });
    expect(losses.at(-1)).toBeLessThan((losses[0] as number) - 0.5);
    expect(Math.max(...Array.from(router.dataSync(), (x, i) => Math.abs(x - (routerBefore[i] as number))))).toBeGreaterThan(1e-3);
    const usage = objective.takeUsage();
    expect(usage.map((layer) => layer.reduce((a, b) => a + b, 0))).toEqual([expect.closeTo(1, 9), expect.closeTo(1, 9)]);
    expect(objective.takeUsage().flat().every((share) => share === 0)).toBe(true);
    model.dispose();
  });
});
