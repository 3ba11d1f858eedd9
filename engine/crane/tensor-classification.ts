/**
 * Where a checkpoint tensor sits in CRANE's scheme, from its name alone.
 *
 *   classifyTensor(name) → TensorClass
 *
 * Covers Qwen3 dense, Qwen3-MoE (per-expert and fused expert keys), Qwen3-Next (gated DeltaNet
 * `linear_attn`, `shared_expert`, `shared_expert_gate`), Qwen2 (q/k/v biases) and Llama.
 * A name may carry any prefix before `layers.N.` as long as that prefix is `model.` or
 * `model.language_model.` (multimodal wrappers); anything else that contains `layers.N.`
 * (e.g. Qwen3-Next's `mtp.layers.0.*` multi-token-prediction head) is NOT a decoder layer.
 *
 * Rules that the spec leaves open (reference implementation followed where it decides):
 * - `shared_expert_gate` belongs to the router group and follows the router rule (SLERP).
 * - `linear_attn.in_proj_qkvz` / `in_proj_ba` read the input_layernorm output like q/k/v do,
 *   so they are projected with the `attn_input` key (the reference does the same).
 * - `linear_attn.out_proj` reads the gated DeltaNet's inner output (value_dim wide, not the
 *   hidden size): the reference projects it with its own `linattn_inner` projector
 *   (crane_gsp_linattn_inner.py), which only an imported reference run carries.
 * - Qwen3-Next's zero-centred norms store w of (1 + w): δ is the same on either reading, so the
 *   edit treats them as any norm (only a gate computed here would see ‖θ_I‖ differ).
 * - Unknown tensors are `other`: inside a layer they form their own gate block (other, l);
 *   outside layers they use the global `other` scale if one was scored, else S = 1. They get
 *   T(δ) and α like any layer tensor and are never projected.
 */

/** Coarse gate groups inside a decoder layer (the spec's reference grouping, plus `other`). */
export type LayerGroup = 'attention' | 'ffn' | 'expert' | 'shared_expert' | 'router' | 'linear_attn' | 'norm' | 'other';

/** Every kind of tensor: a layer group or one of the tensors outside the layers. */
export type TensorGroup = LayerGroup | 'embed' | 'lm_head' | 'final_norm';

/** Which captured activation a tensor's input side reads (its GSP projector key). */
export type GspKey = 'attn_input' | 'ffn_input' | 'linattn_inner';

/** Which edit rule applies to the tensor. */
export type EditRule = 'crane' | 'embedding' | 'lm_head' | 'router';

export interface TensorClass {
  readonly name: string;
  /** Decoder layer index, or null outside the layers. */
  readonly layer: number | null;
  readonly group: TensorGroup;
  /** Finer block within the group: one per projection (q, k, v, o, gate, up, down, …). */
  readonly block: string;
  /** Routed-expert index for per-expert keys; null for fused expert tensors and non-experts. */
  readonly expert: number | null;
  /** Non-null when the input side is projected by GSP (weights only, never biases). */
  readonly gspKey: GspKey | null;
  readonly rule: EditRule;
}

const LAYER_PREFIX = /^(?:model\.(?:language_model\.)?)?layers\.(\d+)\.(.+)$/;

interface LayerPattern {
  readonly match: RegExp;
  readonly group: LayerGroup;
  /** Block name; `$1`-style captures are substituted. */
  readonly block: string;
  readonly gspKey?: GspKey;
  readonly rule?: EditRule;
  /** Capture index holding the expert number. */
  readonly expertCapture?: number;
}

// Order matters: the first match wins. Patterns are matched against the part after `layers.N.`.
const LAYER_PATTERNS: readonly LayerPattern[] = [
  { match: /^self_attn\.([qkv])_proj\.weight$/, group: 'attention', block: '$1', gspKey: 'attn_input' },
  { match: /^self_attn\.([qkvo])_proj\.bias$/, group: 'attention', block: '$1' },
  { match: /^self_attn\.o_proj\.weight$/, group: 'attention', block: 'o' },
  { match: /^self_attn\.([qk])_norm\.weight$/, group: 'attention', block: '$1_norm' },
  { match: /^linear_attn\.(in_proj_qkvz|in_proj_ba)\.weight$/, group: 'linear_attn', block: '$1', gspKey: 'attn_input' },
  { match: /^linear_attn\.out_proj\.weight$/, group: 'linear_attn', block: 'out_proj', gspKey: 'linattn_inner' },
  { match: /^linear_attn\.(conv1d|norm)\.weight$/, group: 'linear_attn', block: '$1' },
  { match: /^linear_attn\.(dt_bias|A_log)$/, group: 'linear_attn', block: '$1' },
  { match: /^mlp\.gate\.weight$/, group: 'router', block: 'router', rule: 'router' },
  { match: /^mlp\.shared_expert_gate\.weight$/, group: 'router', block: 'shared_expert_gate', rule: 'router' },
  { match: /^mlp\.shared_expert\.(gate|up)_proj\.weight$/, group: 'shared_expert', block: '$1', gspKey: 'ffn_input' },
  { match: /^mlp\.shared_expert\.down_proj\.weight$/, group: 'shared_expert', block: 'down' },
  { match: /^mlp\.experts\.(\d+)\.(gate|up)_proj\.weight$/, group: 'expert', block: '$2', gspKey: 'ffn_input', expertCapture: 1 },
  { match: /^mlp\.experts\.(\d+)\.down_proj\.weight$/, group: 'expert', block: 'down', expertCapture: 1 },
  // Fused expert storage (all experts in one 3-D tensor, input dimension last).
  { match: /^mlp\.experts\.gate_up_proj$/, group: 'expert', block: 'gate_up', gspKey: 'ffn_input' },
  { match: /^mlp\.experts\.down_proj$/, group: 'expert', block: 'down' },
  { match: /^mlp\.(gate|up)_proj\.weight$/, group: 'ffn', block: '$1', gspKey: 'ffn_input' },
  { match: /^mlp\.(gate|up|down)_proj\.bias$/, group: 'ffn', block: '$1' },
  { match: /^mlp\.down_proj\.weight$/, group: 'ffn', block: 'down' },
  { match: /^input_layernorm\.weight$/, group: 'norm', block: 'input_norm' },
  { match: /^post_attention_layernorm\.weight$/, group: 'norm', block: 'post_norm' },
  // Other layer-level norms some families add (pre/post feed-forward norms).
  { match: /^(\w*(?:layernorm|_norm))\.weight$/, group: 'norm', block: '$1' },
];

export function classifyTensor(name: string): TensorClass {
  const layerMatch = LAYER_PREFIX.exec(name);
  if (layerMatch !== null) return classifyLayerTensor(name, Number(layerMatch[1]), layerMatch[2] as string);
  const outside = (group: TensorGroup, block: string, rule: EditRule = 'crane'): TensorClass =>
    ({ name, layer: null, group, block, expert: null, gspKey: null, rule });
  if (/(?:^|\.)embed_tokens\.weight$/.test(name)) return outside('embed', 'embed', 'embedding');
  if (/^lm_head\.weight$/.test(name)) return outside('lm_head', 'lm_head', 'lm_head');
  if (/^model\.(?:language_model\.)?norm\.weight$/.test(name)) return outside('final_norm', 'final_norm');
  return outside('other', name);
}

function classifyLayerTensor(name: string, layer: number, rest: string): TensorClass {
  for (const pattern of LAYER_PATTERNS) {
    const m = pattern.match.exec(rest);
    if (m === null) continue;
    return {
      name,
      layer,
      group: pattern.group,
      block: pattern.block.replace(/\$(\d)/g, (_, i: string) => m[Number(i)] ?? ''),
      expert: pattern.expertCapture === undefined ? null : Number(m[pattern.expertCapture]),
      gspKey: pattern.gspKey ?? null,
      rule: pattern.rule ?? 'crane',
    };
  }
  return { name, layer, group: 'other', block: rest, expert: null, gspKey: null, rule: 'crane' };
}

/** The CTG reference block: the dense FFN for dense models, the routed experts for MoE. */
export function referenceGroup(hasRoutedExperts: boolean): LayerGroup {
  return hasRoutedExperts ? 'expert' : 'ffn';
}

/** The key under which a layer's GSP projector is stored (`layer_{l}_attn_input`, …). */
export function projectorKey(layer: number, key: GspKey): string {
  return `layer_${layer}_${key}`;
}
