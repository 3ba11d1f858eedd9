/**
 * Checkpoints with real Qwen3 shapes and random BF16 weights, for the memory benchmarks
 * (bench-shapes.ts, bench-memory.ts): the real 151,936-row tied embedding and a chosen number of
 * decoder layers of Qwen3-4B's or Qwen3-0.6B's shapes. No tokenizer: the benchmarks feed ids.
 *
 *   await writeShapedModel(dir, '4b', { layers: 1, seed: 1 })
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeCheckpoint } from '../engine/io/checkpoint-writer.ts';
import type { TensorSpec } from '../engine/io/tensor-encoding.ts';
import { parseModelSpec } from '../engine/model/config.ts';
import { EMBED_NAME, FINAL_NORM_NAME, layerParamShapes, layerTensorName } from '../engine/model/weights.ts';

export const QWEN3_VOCAB = 151_936;
/** config.json layer shapes of Qwen3-4B and Qwen3-0.6B. */
export const QWEN3_SHAPES = {
  '4b': { hidden_size: 2560, intermediate_size: 9728, num_attention_heads: 32, num_key_value_heads: 8, head_dim: 128 },
  '0.6b': { hidden_size: 1024, intermediate_size: 3072, num_attention_heads: 16, num_key_value_heads: 8, head_dim: 128 },
} as const;
export type Qwen3Shape = keyof typeof QWEN3_SHAPES;

export function shapedConfig(shape: Qwen3Shape, layers: number): Record<string, unknown> {
  return {
    architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', ...QWEN3_SHAPES[shape], num_hidden_layers: layers, vocab_size: QWEN3_VOCAB,
    max_position_embeddings: 40960, rms_norm_eps: 1e-6, rope_theta: 1_000_000, tie_word_embeddings: true, hidden_act: 'silu',
    attention_bias: false, eos_token_id: 151645, torch_dtype: 'bfloat16',
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

export async function writeShapedModel(dir: string, shape: Qwen3Shape, options: { layers: number; seed: number }): Promise<void> {
  const config = shapedConfig(shape, options.layers);
  const hidden = QWEN3_SHAPES[shape].hidden_size;
  const specs: TensorSpec[] = [{ name: EMBED_NAME, dtype: 'BF16', shape: [QWEN3_VOCAB, hidden] }];
  for (let layer = 0; layer < options.layers; layer++) {
    for (const [key, s] of layerParamShapes(parseModelSpec(config), layer)) specs.push({ name: layerTensorName(layer, key), dtype: 'BF16', shape: s });
  }
  specs.push({ name: FINAL_NORM_NAME, dtype: 'BF16', shape: [hidden] });
  await writeCheckpoint(dir, {
    specs,
    produce: async (spec) => randomValues(spec, options.seed),
    writeSideFiles: (work) => writeFile(join(work, 'config.json'), `${JSON.stringify(config, null, 2)}\n`),
  });
}
