/** Where the built-in demo pair, its base and its data live, and the demo model's shape. */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const DEMO_ROOT = fileURLToPath(new URL('../../assets/demo/', import.meta.url));

export function demoPaths(root: string = DEMO_ROOT) {
  const data = join(root, 'data');
  return {
    root,
    /** The shared base both fine-tunes start from (RAIN's third checkpoint). */
    base: join(root, 'base'),
    instruct: join(root, 'instruct'),
    thinking: join(root, 'thinking'),
    data,
    reasoning: join(data, 'reasoning.jsonl'),
    toolUse: join(data, 'tool-use.jsonl'),
    format: join(data, 'format.jsonl'),
    eval: join(data, 'eval.jsonl'),
    /** eval.jsonl's D_R and D_A prompts as Verify's evaluation files (eval-set.ts verifyChats). */
    evalReasoning: join(data, 'eval-reasoning.jsonl'),
    evalToolUse: join(data, 'eval-tool-use.jsonl'),
    /** RAIN's two calibration files in the reference's formats (rain-sets.ts). */
    rainReasoning: join(data, 'rain-reasoning.json'),
    rainInstructions: join(data, 'rain-instructions.jsonl'),
    report: join(root, 'training-report.json'),
  };
}

/** The demo model: a Qwen3 (q/k norms, GQA, tied embeddings) small enough to train on 2 cores. */
export function demoModelConfig(vocabSize: number, endOfTurnId: number): Record<string, unknown> {
  return {
    architectures: ['Qwen3ForCausalLM'],
    model_type: 'qwen3',
    hidden_size: 96,
    intermediate_size: 256,
    num_hidden_layers: 4,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    head_dim: 32,
    vocab_size: vocabSize,
    max_position_embeddings: 1024,
    rms_norm_eps: 1e-6,
    rope_theta: 10000,
    tie_word_embeddings: true,
    hidden_act: 'silu',
    attention_bias: false,
    eos_token_id: endOfTurnId,
    torch_dtype: 'float32',
  };
}
