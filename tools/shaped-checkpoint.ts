/**
 * Checkpoints with real Qwen3 shapes and random BF16 weights, for the memory benchmarks
 * (bench-shapes.ts, bench-memory.ts) and tools/qwen3-tiny-pair.ts --shape: the real 151,936-row
 * tied embedding and a chosen number of decoder layers of Qwen3-4B's or Qwen3-0.6B's shapes; or
 * a Qwen3-30B-A3B-shaped MoE checkpoint (the real 18,867 tensor names, widths scaled down); or a
 * Nanbeige4.2-3B-shaped looped one (two passes over the layers). No tokenizer: the benchmarks feed ids.
 *
 *   await writeShapedModel(dir, '4b', { layers: 1, seed: 1 })
 *   await writeShapedMoeModel(dir, { scale: 8, seed: 1, fullSizeExpertLayer: 0 })   (shapedMoeSpecs: its tensors)
 *   await writeShapedLoopedModel(dir, { layers: 2, seed: 1 })
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeCheckpoint } from '../engine/io/checkpoint-writer.ts';
import type { TensorSpec } from '../engine/io/tensor-encoding.ts';
import { parseModelSpec } from '../engine/model/config.ts';
import { EMBED_NAME, FINAL_NORM_NAME, layerParamShapes, layerTensorName, LM_HEAD_NAME } from '../engine/model/weights.ts';

/** Qwen3's embedding/lm_head rows (vocab_size of every Qwen3 config; the tokenizer uses 151,669). */
export const QWEN3_VOCAB = 151_936;
/** config.json layer shapes of Qwen3-4B and Qwen3-0.6B. */
export const QWEN3_SHAPES = {
  '4b': { hidden_size: 2560, intermediate_size: 9728, num_attention_heads: 32, num_key_value_heads: 8, head_dim: 128 },
  '0.6b': { hidden_size: 1024, intermediate_size: 3072, num_attention_heads: 16, num_key_value_heads: 8, head_dim: 128 },
} as const;
export type Qwen3Shape = keyof typeof QWEN3_SHAPES;

function shapedConfig(shape: Qwen3Shape, layers: number): Record<string, unknown> {
  return {
    architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', ...QWEN3_SHAPES[shape], num_hidden_layers: layers, vocab_size: QWEN3_VOCAB,
    max_position_embeddings: 40960, rms_norm_eps: 1e-6, rope_theta: 1_000_000, tie_word_embeddings: true, hidden_act: 'silu',
    attention_bias: false, eos_token_id: 151645, torch_dtype: 'bfloat16',
  };
}

/**
 * Qwen3-30B-A3B's config.json (../shared/reference/architectures.md §4.1): 48 layers, 32 query
 * heads over 4 KV heads of 128, every layer 128 routed experts of width 768 (top-8, renormalised),
 * no shared expert, untied lm_head.
 */
export const QWEN3_30B_A3B = {
  architectures: ['Qwen3MoeForCausalLM'], model_type: 'qwen3_moe', hidden_size: 2048, num_hidden_layers: 48,
  num_attention_heads: 32, num_key_value_heads: 4, head_dim: 128, intermediate_size: 6144, moe_intermediate_size: 768,
  num_experts: 128, num_experts_per_tok: 8, norm_topk_prob: true, decoder_sparse_step: 1, mlp_only_layers: [],
  vocab_size: QWEN3_VOCAB, tie_word_embeddings: false, rms_norm_eps: 1e-6, rope_theta: 10_000_000, max_position_embeddings: 262_144,
  hidden_act: 'silu', attention_bias: false, bos_token_id: 151643, eos_token_id: 151645, torch_dtype: 'bfloat16',
};

/** 48 × (q, k, v, o, q/k norms, 2 layer norms, router, 128 experts × gate/up/down) + embed, final norm, lm_head. */
export const QWEN3_30B_A3B_TENSORS = 48 * (6 + 2 + 1 + 128 * 3) + 3;

/** Qwen3-30B-A3B's config with every width divided by `scale` (layers, heads and experts kept): the same names, 1/scale² the bytes. */
export function scaledMoeConfig(scale: number): Record<string, unknown> {
  const c = QWEN3_30B_A3B;
  const divide = (value: number, field: string): number => {
    if (!Number.isSafeInteger(scale) || scale < 1 || value % scale !== 0) throw new RangeError(`scale ${scale} does not divide ${field} ${value}: use a power of two up to 128`);
    return value / scale;
  };
  return {
    ...c, hidden_size: divide(c.hidden_size, 'hidden_size'), head_dim: divide(c.head_dim, 'head_dim'), intermediate_size: divide(c.intermediate_size, 'intermediate_size'),
    moe_intermediate_size: divide(c.moe_intermediate_size, 'moe_intermediate_size'), vocab_size: divide(c.vocab_size, 'vocab_size'),
  };
}

/** Uniform ±0.02 (norms around 1) from a xorshift stream: fast enough for 400M values. */
function randomValues(spec: TensorSpec, seed: number): Float32Array {
  const out = new Float32Array(spec.shape.reduce((a, b) => a * b, 1));
  const offset = spec.name.endsWith('norm.weight') ? 1 : 0;
  let state = (seed * 2654435761 + spec.name.length * 40503) >>> 0 || 1;
  for (let i = 0; i < out.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = offset + 0.04 * ((state >>> 0) / 4294967296 - 0.5);
  }
  return out;
}

function writeRandom(dir: string, specs: readonly TensorSpec[], config: Record<string, unknown>, seed: number): Promise<unknown> {
  return writeCheckpoint(dir, {
    specs,
    produce: async (spec) => randomValues(spec, seed),
    writeSideFiles: (work) => writeFile(join(work, 'config.json'), `${JSON.stringify(config, null, 2)}\n`),
  });
}

/** The decoder layers' tensors of a config, layer by layer; `shapeOf` may replace a layer tensor's shape. */
function layerSpecs(config: Record<string, unknown>, shapeOf: (layer: number, key: string, shape: readonly number[]) => readonly number[] = (_, __, s) => s): TensorSpec[] {
  const spec = parseModelSpec(config);
  const specs: TensorSpec[] = [];
  for (let layer = 0; layer < spec.numLayers; layer++) {
    for (const [key, s] of layerParamShapes(spec, layer)) specs.push({ name: layerTensorName(layer, key), dtype: 'BF16', shape: [...shapeOf(layer, key, s)] });
  }
  return specs;
}

export async function writeShapedModel(dir: string, shape: Qwen3Shape, options: { layers: number; seed: number }): Promise<void> {
  const config = shapedConfig(shape, options.layers);
  const hidden = QWEN3_SHAPES[shape].hidden_size;
  const specs: TensorSpec[] = [{ name: EMBED_NAME, dtype: 'BF16', shape: [QWEN3_VOCAB, hidden] }, ...layerSpecs(config), { name: FINAL_NORM_NAME, dtype: 'BF16', shape: [hidden] }];
  await writeRandom(dir, specs, config, options.seed);
}

/**
 * Nanbeige4.2-3B's config (../shared/reference/architectures.md §6.2): 22 layers run twice with
 * model.norm between the passes, 48 query heads over 8 KV heads of 128 (≠ 3,072 / 48), MLP 10,752,
 * vocab 166,144, untied lm_head. The layer count is cut to `layers`.
 */
export function nanbeigeConfig(layers: number): Record<string, unknown> {
  return {
    architectures: ['NanbeigeForCausalLM'], model_type: 'nanbeige', hidden_size: 3072, num_hidden_layers: layers, num_loops: 2, skip_loop_final_norm: false,
    num_attention_heads: 48, num_key_value_heads: 8, head_dim: 128, intermediate_size: 10752, hidden_act: 'silu', rms_norm_eps: 1e-5,
    rope_theta: 70_000_000, max_position_embeddings: 262_144, vocab_size: 166_144, tie_word_embeddings: false, attention_bias: false,
    mlp_bias: false, bos_token_id: 166100, eos_token_id: 166101, torch_dtype: 'bfloat16',
  };
}

/** A Nanbeige4.2-3B-shaped looped checkpoint with random BF16 weights (embedding, `layers` layers, norm, lm_head). */
export async function writeShapedLoopedModel(dir: string, options: { layers: number; seed: number }): Promise<void> {
  const config = nanbeigeConfig(options.layers);
  const [hidden, vocab] = [config['hidden_size'] as number, config['vocab_size'] as number];
  const specs: TensorSpec[] = [
    { name: EMBED_NAME, dtype: 'BF16', shape: [vocab, hidden] }, ...layerSpecs(config),
    { name: FINAL_NORM_NAME, dtype: 'BF16', shape: [hidden] }, { name: LM_HEAD_NAME, dtype: 'BF16', shape: [vocab, hidden] },
  ];
  await writeRandom(dir, specs, config, options.seed);
}

export interface ShapedMoeOptions {
  readonly scale: number;
  /** The layer whose routed experts keep their full [768, 2048] / [2048, 768]; null: none. */
  readonly fullSizeExpertLayer: number | null;
}

/**
 * The tensors of a Qwen3-30B-A3B-shaped checkpoint: every name of the real one, widths divided by
 * `scale`, except the routed experts of `fullSizeExpertLayer`, at full size so an export also
 * streams real-size expert tensors.
 */
export function shapedMoeSpecs(options: ShapedMoeOptions): TensorSpec[] {
  const config = scaledMoeConfig(options.scale);
  const full = new Map(layerSpecs(QWEN3_30B_A3B).map((s) => [s.name, s.shape]));
  const [hidden, vocab] = [config['hidden_size'] as number, config['vocab_size'] as number];
  const layers = layerSpecs(config, (layer, key, shape) => (layer === options.fullSizeExpertLayer && key.startsWith('mlp.experts.') ? full.get(layerTensorName(layer, key)) ?? shape : shape));
  const specs: TensorSpec[] = [
    { name: EMBED_NAME, dtype: 'BF16', shape: [vocab, hidden] }, ...layers,
    { name: FINAL_NORM_NAME, dtype: 'BF16', shape: [hidden] }, { name: LM_HEAD_NAME, dtype: 'BF16', shape: [vocab, hidden] },
  ];
  if (specs.length !== QWEN3_30B_A3B_TENSORS) throw new Error(`derived ${specs.length} tensor names, not Qwen3-30B-A3B's ${QWEN3_30B_A3B_TENSORS}`);
  return specs;
}

/** shapedMoeSpecs with random BF16 values; config.json is the scaled config. */
export async function writeShapedMoeModel(dir: string, options: ShapedMoeOptions & { readonly seed: number }): Promise<void> {
  await writeRandom(dir, shapedMoeSpecs(options), scaledMoeConfig(options.scale), options.seed);
}
