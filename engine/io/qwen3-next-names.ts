/**
 * The tensor names a Qwen3-Next checkpoint (`model_type: qwen3_next`) may hold, checked against
 * its config: the studio merges Qwen3-Next only from a reference run's analysis, with no runtime
 * to notice a tensor it does not know, so every name must be one it knows where it belongs.
 *
 *   isQwen3Next(config) → boolean
 *   unknownQwen3NextTensors(names, config) → [{ name, reason }]     empty when every name is known
 *
 * Known: embed_tokens, lm_head, the final norm; per decoder layer the two (1 + w) norms, gated
 * full attention (`self_attn.{q,k,v,o}_proj`, `q_norm`, `k_norm`) on the layers `layer_types`
 * (or every `full_attention_interval`-th layer, default 4) marks full_attention and gated
 * DeltaNet (`linear_attn.{in_proj_qkvz,in_proj_ba,conv1d,norm,out_proj}.weight`, `dt_bias`,
 * `A_log`) on the others, the router `mlp.gate`, routed experts below `num_experts`, the shared
 * expert and its sigmoid gate; and the multi-token-prediction head `mtp.*` the checkpoint ships
 * (transformers ignores it on load): `mtp.fc`, its norms and `mtp.layers.N.*` full-attention
 * layers of the same grammar. Anything else, or a layer index past `num_hidden_layers`, is unknown.
 */

export interface UnknownTensor {
  readonly name: string;
  readonly reason: string;
}

type Config = Readonly<Record<string, unknown>>;

export function isQwen3Next(config: Config): boolean {
  return config['model_type'] === 'qwen3_next';
}

const OUTSIDE_LAYERS = new Set(['model.embed_tokens.weight', 'lm_head.weight', 'model.norm.weight']);
const MTP_OUTSIDE_LAYERS = new Set(['mtp.fc.weight', 'mtp.pre_fc_norm_embedding.weight', 'mtp.pre_fc_norm_hidden.weight', 'mtp.norm.weight']);

const COMMON = /^(?:input_layernorm|post_attention_layernorm)\.weight$|^mlp\.(?:gate|shared_expert_gate)\.weight$|^mlp\.shared_expert\.(?:gate|up|down)_proj\.weight$/;
const EXPERT = /^mlp\.experts\.(0|[1-9]\d*)\.(?:gate|up|down)_proj\.weight$/;
const FULL_ATTENTION = /^self_attn\.(?:[qkvo]_proj|[qk]_norm)\.weight$/;
const LINEAR_ATTENTION = /^linear_attn\.(?:(?:in_proj_qkvz|in_proj_ba|conv1d|norm|out_proj)\.weight|dt_bias|A_log)$/;
const LAYER = /^(model|mtp)\.layers\.(0|[1-9]\d*)\.(.+)$/;

export function unknownQwen3NextTensors(names: Iterable<string>, config: Config): UnknownTensor[] {
  const layers = positiveInt(config['num_hidden_layers']);
  const experts = positiveInt(config['num_experts']);
  const full = fullAttentionLayers(config, layers ?? 0);
  const unknown: UnknownTensor[] = [];
  for (const name of names) {
    if (OUTSIDE_LAYERS.has(name) || MTP_OUTSIDE_LAYERS.has(name)) continue;
    const match = LAYER.exec(name);
    if (match === null) {
      unknown.push({ name, reason: 'is not a Qwen3-Next tensor (outside the layers only embed_tokens, lm_head, model.norm and mtp.fc / its norms)' });
      continue;
    }
    const [, stack, index, rest] = match as unknown as [string, 'model' | 'mtp', string, string];
    const layer = Number(index);
    const reason = stack === 'mtp' ? layerProblem(rest, true, experts) : layers !== undefined && layer >= layers
      ? `is in layer ${layer}, past num_hidden_layers ${layers}`
      : layerProblem(rest, full.has(layer), experts);
    if (reason !== null) unknown.push({ name, reason });
  }
  return unknown;
}

/** Why `rest` (the name after `layers.N.`) does not belong in a layer of this kind, or null. */
function layerProblem(rest: string, fullAttention: boolean, experts: number | undefined): string | null {
  if (COMMON.test(rest)) return null;
  const expert = EXPERT.exec(rest);
  if (expert !== null) {
    const e = Number(expert[1]);
    return experts !== undefined && e >= experts ? `is routed expert ${e}, past num_experts ${experts}` : null;
  }
  if (FULL_ATTENTION.test(rest)) return fullAttention ? null : 'is a full-attention tensor in a linear-attention (gated DeltaNet) layer';
  if (LINEAR_ATTENTION.test(rest)) return fullAttention ? 'is a gated DeltaNet tensor in a full-attention layer' : null;
  return 'is not a Qwen3-Next layer tensor (norms, self_attn or linear_attn, router, experts, shared expert and its gate)';
}

/** Layers of type full_attention: `layer_types` when given, else every interval-th layer ((i + 1) % interval == 0). */
function fullAttentionLayers(config: Config, layers: number): Set<number> {
  const types = config['layer_types'];
  if (Array.isArray(types)) return new Set(types.flatMap((type, i) => (type === 'full_attention' ? [i] : [])));
  const interval = positiveInt(config['full_attention_interval']) ?? 4;
  return new Set(Array.from({ length: layers }, (_, i) => i).filter((i) => (i + 1) % interval === 0));
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}
