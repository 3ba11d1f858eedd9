/**
 * writeTinyCheckpoint(): a deterministic, seeded random checkpoint (config.json +
 * model.safetensors, F32) of a tiny Qwen3 / Qwen2 / Llama model, for tests and benchmarks.
 * Linear weights ~ N(0, std²), biases ~ N(0, (std/2)²), norm weights ~ 1 + N(0, 0.1²) (so norm
 * gradients are not degenerate).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSafetensors } from '../../io/safetensors-writer.ts';
import type { TensorSpec } from '../../io/tensor-encoding.ts';
import { parseModelSpec, type ArchitectureFamily, type ModelSpec } from '../config.ts';
import { isSparseLayer, type MoeSpec } from '../moe-config.ts';
import { expertKey, fuseExpertArrays, fusedShapes } from '../moe-weights.ts';
import { EMBED_NAME, FINAL_NORM_NAME, LM_HEAD_NAME, layerParamShapes, layerTensorName } from '../weights.ts';
import { SeededRandom } from '../../protocol/seeded-random.ts';

export interface TinyModelOptions {
  readonly family?: ArchitectureFamily;
  readonly hidden?: number;
  readonly intermediate?: number;
  readonly layers?: number;
  readonly heads?: number;
  readonly kvHeads?: number;
  readonly headDim?: number;
  readonly vocab?: number;
  readonly tied?: boolean;
  readonly seed?: number;
  /** Standard deviation of linear weights (default 0.2: tiny models need visible signal). */
  readonly std?: number;
  /** Put rope_theta inside rope_parameters (transformers v5 style) instead of top level. */
  readonly ropeParameters?: boolean;
  readonly ropeTheta?: number;
  /** Make it a Qwen3MoeForCausalLM (family qwen3) with these experts, per-expert tensors. */
  readonly moe?: TinyMoeOptions;
  /** Make it a looped NanbeigeForCausalLM (family llama) with these config keys. */
  readonly loop?: { readonly numLoops: number; readonly skipLoopFinalNorm?: boolean };
}

export interface TinyMoeOptions {
  readonly experts: number;
  readonly perToken: number;
  readonly inner: number;
  readonly normTopkProb?: boolean;
  readonly mlpOnlyLayers?: readonly number[];
  /** Store the experts as transformers v5's fused 3-D tensors instead of per expert. */
  readonly fused?: boolean;
}

const CLASS: Record<ArchitectureFamily, string> = { qwen3: 'Qwen3ForCausalLM', qwen2: 'Qwen2ForCausalLM', llama: 'LlamaForCausalLM' };

export function tinyConfig(o: TinyModelOptions = {}): Record<string, unknown> {
  const family = o.family ?? 'qwen3';
  const theta = o.ropeTheta ?? 10000;
  const moe = o.moe === undefined ? {} : {
    architectures: ['Qwen3MoeForCausalLM'], model_type: 'qwen3_moe', num_experts: o.moe.experts, num_experts_per_tok: o.moe.perToken,
    moe_intermediate_size: o.moe.inner, norm_topk_prob: o.moe.normTopkProb ?? true, mlp_only_layers: o.moe.mlpOnlyLayers ?? [], decoder_sparse_step: 1,
  };
  const loop = o.loop === undefined ? {} : {
    architectures: ['NanbeigeForCausalLM'], model_type: 'nanbeige', num_loops: o.loop.numLoops, skip_loop_final_norm: o.loop.skipLoopFinalNorm ?? false,
  };
  return {
    architectures: [CLASS[family]],
    model_type: family,
    hidden_size: o.hidden ?? 32,
    intermediate_size: o.intermediate ?? 48,
    num_hidden_layers: o.layers ?? 2,
    num_attention_heads: o.heads ?? 4,
    num_key_value_heads: o.kvHeads ?? 2,
    head_dim: o.headDim ?? 8,
    vocab_size: o.vocab ?? 64,
    hidden_act: 'silu',
    rms_norm_eps: 1e-6,
    tie_word_embeddings: o.tied ?? true,
    attention_bias: false,
    eos_token_id: 2,
    bos_token_id: 1,
    ...(o.ropeParameters === true ? { rope_parameters: { rope_type: 'default', rope_theta: theta } } : { rope_theta: theta }),
    torch_dtype: 'float32',
    ...moe,
    ...loop,
  };
}

/** Writes the checkpoint into `dir` (default: a fresh temp folder) and returns the folder. */
export async function writeTinyCheckpoint(options: TinyModelOptions = {}, dir?: string): Promise<string> {
  const target = dir ?? (await mkdtemp(join(tmpdir(), 'crane-tiny-')));
  const config = tinyConfig(options);
  const spec = parseModelSpec(config, target);
  const rng = new SeededRandom(options.seed ?? 1234);
  const std = options.std ?? 0.2;
  const tensors: { spec: TensorSpec; data: Float32Array }[] = [];
  const add = (name: string, shape: readonly number[]): void => {
    const n = shape.reduce((a, b) => a * b, 1);
    const isNorm = name.endsWith('norm.weight');
    const data = isNorm ? rng.normals(n, 0.1, 1) : rng.normals(n, name.endsWith('.bias') ? std / 2 : std);
    tensors.push({ spec: { name, dtype: 'F32', shape }, data });
  };
  add(EMBED_NAME, [spec.vocabSize, spec.hiddenSize]);
  for (let l = 0; l < spec.numLayers; l++) {
    for (const [key, shape] of layerParamShapes(spec, l)) add(layerTensorName(l, key), shape);
  }
  add(FINAL_NORM_NAME, [spec.hiddenSize]);
  if (!spec.tiedEmbeddings) add(LM_HEAD_NAME, [spec.vocabSize, spec.hiddenSize]);
  await writeFile(join(target, 'config.json'), JSON.stringify(config, null, 2));
  await writeSafetensors(join(target, 'model.safetensors'), options.moe?.fused === true ? fuseExperts(spec, tensors) : tensors);
  return target;
}

/** The same weights with every sparse layer's per-expert tensors replaced by the fused pair. */
function fuseExperts(spec: ModelSpec, tensors: readonly { spec: TensorSpec; data: Float32Array }[]): { spec: TensorSpec; data: Float32Array }[] {
  const moe = spec.moe as MoeSpec;
  const byName = new Map(tensors.map((t) => [t.spec.name, t.data]));
  const out = tensors.filter((t) => !/\.mlp\.experts\.\d+\./.test(t.spec.name));
  for (let l = 0; l < spec.numLayers; l++) {
    if (!isSparseLayer(moe, l)) continue;
    const fused = fuseExpertArrays(moe, spec.hiddenSize, (e, projection) => byName.get(layerTensorName(l, expertKey(e, projection))) as Float32Array);
    for (const [key, shape] of fusedShapes(moe, spec.hiddenSize)) out.push({ spec: { name: layerTensorName(l, key), dtype: 'F32', shape }, data: fused.get(key) as Float32Array });
  }
  return out;
}
