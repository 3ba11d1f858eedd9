/**
 * The looped-transformer facts of a Nanbeige4.2 config.json (NanbeigeForCausalLM): the same
 * decoder layers run `num_loops` times (embed → L0…L(N−1) → norm → L0…L(N−1) → norm → lm_head
 * for two loops), every (pass, layer) with its own K/V, no per-pass parameters.
 *
 * `skip_loop_final_norm` false (the shipped value): model.norm is applied after EVERY pass, the
 * last one included (that last one is the head's norm). true: only once, after the last pass. The
 * head's norm is the same in both cases, so the flag decides only whether a norm sits between
 * passes.
 *
 * modeling_nanbeige.py also implements extras that this checkpoint keeps off; a config that turns
 * one on is refused, naming the key, because running it as a plain loop would be silently wrong.
 */
import type { ModelConfig } from '../io/checkpoint.ts';

export interface LoopSpec {
  /** How many times the decoder stack runs (num_loops). */
  readonly numLoops: number;
  /** model.norm between consecutive passes (skip_loop_final_norm false). */
  readonly normBetweenPasses: boolean;
}

/** Keys of features the runtime refuses, with what each one is, when the value turns it on. */
const REFUSED: readonly (readonly [key: string, feature: string, on: (value: unknown) => boolean])[] = [
  ['enable_double_loop_split', 'LoopSplit (only the middle layers repeat)', isTrue],
  ['loop_middle_layers', 'LoopSplit (only the middle layers repeat)', isSet],
  ['loop_share_kv', 'LoopSplit K/V sharing across repeats', isTrue],
  ['enable_hyper_connection', 'hyper-connections (several residual streams)', isTrue],
  ['enable_mhc', 'mHC (Sinkhorn-mixed residual streams)', isTrue],
  ['enable_h_res_identity', 'mHC residual identity mixing', isTrue],
  ['mhc_diff_for_loop', 'per-pass mHC modules', isTrue],
  ['enable_depth_attention', 'depth attention (values mixed across depths)', isTrue],
  ['emb_neighbor_num', 'n-gram embeddings', isSet],
  ['insert_ngram_layer_idx', 'n-gram layer fusion', isSet],
  ['ngram_insert_all_layers', 'n-gram layer fusion', isTrue],
  ['loop_loss_weights', 'per-loop training losses (they change the loop count)', isSet],
  ['qk_layernorm', 'q/k layernorm', isTrue],
];

function isTrue(value: unknown): boolean {
  return value === true;
}

/** null, absent, false, 0 and empty lists leave a feature off; anything else turns it on. */
function isSet(value: unknown): boolean {
  return value != null && value !== false && value !== 0 && !(Array.isArray(value) && value.length === 0);
}

/** Reads the loop keys; `fail` throws a CheckpointError naming config.json. */
export function parseLoopSpec(config: ModelConfig, fail: (message: string) => never): LoopSpec {
  for (const [key, feature, on] of REFUSED) {
    if (on(config[key])) fail(`sets "${key}": ${JSON.stringify(config[key])}, which turns on ${feature}; the model runtime supports only the plain loop`);
  }
  const loops = config['num_loops'] ?? 1;
  if (typeof loops !== 'number' || !Number.isInteger(loops) || loops <= 0) fail(`"num_loops" must be a positive integer (got ${JSON.stringify(loops)})`);
  const skip = config['skip_loop_final_norm'] ?? false;
  if (typeof skip !== 'boolean') fail(`"skip_loop_final_norm" must be true or false (got ${JSON.stringify(skip)})`);
  return { numLoops: loops as number, normBetweenPasses: skip === false };
}

/** Passes of the decoder stack: 1 for a model without a loop. */
export function passCount(spec: { readonly loop?: LoopSpec }): number {
  return spec.loop?.numLoops ?? 1;
}
