/**
 * The built-in looped demo pair: laid out like the dense demo (demoPaths(DEMO_LOOPED_ROOT): base/,
 * instruct/, thinking/, data/, training-report.json), and its model: a NanbeigeForCausalLM with
 * Nanbeige4.2's config keys and tensor names — untied lm_head, head_dim ≠ hidden/heads, no q/k
 * norms, the same decoder layers run num_loops = 2 times with model.norm between the passes
 * (skip_loop_final_norm false) — at the dense demo's widths, with 2 physical layers (4
 * effective: a step costs about what a dense demo step does).
 *
 * Its tokenizer is Nanbeige-style (Metaspace + byte fallback, calibration/nanbeige-style-tokenizer.ts)
 * and its chat template is assets/templates/nanbeige-style.jinja with ONE change: tool calls
 * default to the JSON form (tool_call_format "json"), the form the demo's scoring reads and the
 * Thinking sibling's habit distorts (styles.ts); tool_call_format "xml" still selects the XML form.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { NANBEIGE_STYLE_TEMPLATE_PATH } from '../calibration/chat-template.ts';

export const DEMO_LOOPED_ROOT = fileURLToPath(new URL('../../assets/demo-looped/', import.meta.url));

/** Precedes the template: its own `tool_call_format` line then sees the variable as given. */
const JSON_TOOL_CALLS_DEFAULT = "{#- CRANE's looped demo pair: tool calls default to JSON. -#}\n{%- set tool_call_format = tool_call_format if tool_call_format is defined else 'json' -%}\n";

export async function loopedDemoChatTemplate(): Promise<string> {
  return JSON_TOOL_CALLS_DEFAULT + (await readFile(NANBEIGE_STYLE_TEMPLATE_PATH, 'utf8'));
}

/**
 * The Nanbeige-style tokenizer adds <|im_start|> right before <|im_end|> (NANBEIGE_STYLE_ADDED_TOKENS),
 * so BOS, as Nanbeige4.2 sets it, is the end-of-turn id − 1.
 */
export function demoLoopedModelConfig(vocabSize: number, endOfTurnId: number): Record<string, unknown> {
  return {
    architectures: ['NanbeigeForCausalLM'],
    model_type: 'nanbeige',
    hidden_size: 96,
    intermediate_size: 256,
    num_hidden_layers: 2,
    num_loops: 2,
    skip_loop_final_norm: false,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    head_dim: 32,
    vocab_size: vocabSize,
    max_position_embeddings: 1024,
    rms_norm_eps: 1e-5,
    rope_theta: 10000,
    rope_scaling: null,
    tie_word_embeddings: false,
    hidden_act: 'silu',
    attention_bias: false,
    mlp_bias: false,
    qk_layernorm: false,
    enable_double_loop_split: false,
    enable_hyper_connection: false,
    enable_mhc: false,
    enable_depth_attention: false,
    emb_neighbor_num: null,
    loop_loss_weights: null,
    bos_token_id: endOfTurnId - 1,
    eos_token_id: endOfTurnId,
    torch_dtype: 'float32',
  };
}
