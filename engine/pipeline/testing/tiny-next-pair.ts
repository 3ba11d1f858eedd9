/**
 * A tiny Qwen3-Next-shaped pair and a hand-made reference run for it, for the reference-only merge
 * tests: the real tensor names (3 gated DeltaNet layers and 1 gated full-attention layer, 4 routed
 * experts, the shared expert and its sigmoid gate, the multi-token-prediction head's fc) with tiny
 * shapes (hidden 8, value_dim 6), F32, seeded values; and phase2_stats.json, format_projectors.pt
 * and format_projectors_linattn_inner.pt as the reference pipeline writes them.
 *
 * Every tensor carries what the reference's merge does with it, written out here by hand from
 * src/_common.py's classify_component and src/crane_merge.py's projector choice (not derived from
 * engine/crane): its component, its layer and the projector key of its input side.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFixtureCheckpoint } from '../../io/testing/fixtures.ts';
import { writeTorchFile, type TorchValue } from '../../io/torch-file.ts';
import { hashName, SeededRandom } from '../../protocol/seeded-random.ts';

export type NextRule = 'crane' | 'router' | 'embedding' | 'lm_head';

export interface NextTensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly rule: NextRule;
  /** The reference's component (S lookup), null for the special rules. */
  readonly component: string | null;
  readonly layer: number | null;
  /** `layer_{l}_{key}` projecting the input side, or null. */
  readonly projector: string | null;
}

const HIDDEN = 8;
const VALUE_DIM = 6;
const VOCAB = 16;
const LAYERS = 4;
const EXPERTS = 4;

export const NEXT_CONFIG = {
  architectures: ['Qwen3NextForCausalLM'], model_type: 'qwen3_next', hidden_size: HIDDEN, num_hidden_layers: LAYERS,
  full_attention_interval: 4, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 4, partial_rotary_factor: 0.25,
  linear_num_key_heads: 2, linear_num_value_heads: 2, linear_key_head_dim: 2, linear_value_head_dim: 3, linear_conv_kernel_dim: 4,
  num_experts: EXPERTS, num_experts_per_tok: 2, moe_intermediate_size: 3, shared_expert_intermediate_size: 5, norm_topk_prob: true,
  decoder_sparse_step: 1, mlp_only_layers: [], vocab_size: VOCAB, tie_word_embeddings: false, rms_norm_eps: 1e-6, torch_dtype: 'float32',
};

/** `<think>`/`</think>` rows and the lm_head rows kept at θ_I, as a tokenizer would give them. */
export const NEXT_TOKENS = { think: [13, 14], special: [10, 11, 12, 15] };

function layerTensors(layer: number): NextTensor[] {
  const t = (rest: string, shape: number[], component: string, projector: string | null = null, rule: NextRule = 'crane'): NextTensor =>
    ({ name: `model.layers.${layer}.${rest}`, shape, rule, component, layer, projector: projector === null ? null : `layer_${layer}_${projector}` });
  const attention = (layer + 1) % 4 === 0
    ? [
      t('self_attn.q_proj.weight', [16, HIDDEN], 'attention', 'attn_input'), t('self_attn.k_proj.weight', [4, HIDDEN], 'attention', 'attn_input'),
      t('self_attn.v_proj.weight', [4, HIDDEN], 'attention', 'attn_input'), t('self_attn.o_proj.weight', [HIDDEN, 8], 'attention'),
      t('self_attn.q_norm.weight', [4], 'attention'), t('self_attn.k_norm.weight', [4], 'attention'),
    ]
    : [
      t('linear_attn.in_proj_qkvz.weight', [20, HIDDEN], 'linear_attn', 'attn_input'), t('linear_attn.in_proj_ba.weight', [4, HIDDEN], 'linear_attn', 'attn_input'),
      t('linear_attn.conv1d.weight', [14, 1, 4], 'linear_attn'), t('linear_attn.dt_bias', [2], 'linear_attn'), t('linear_attn.A_log', [2], 'linear_attn'),
      t('linear_attn.norm.weight', [3], 'linear_attn'), t('linear_attn.out_proj.weight', [HIDDEN, VALUE_DIM], 'linear_attn', 'linattn_inner'),
    ];
  const experts = Array.from({ length: EXPERTS }, (_, e) => [
    t(`mlp.experts.${e}.gate_proj.weight`, [3, HIDDEN], 'expert', 'ffn_input'), t(`mlp.experts.${e}.up_proj.weight`, [3, HIDDEN], 'expert', 'ffn_input'),
    t(`mlp.experts.${e}.down_proj.weight`, [HIDDEN, 3], 'expert'),
  ]).flat();
  return [
    t('input_layernorm.weight', [HIDDEN], 'norm'), t('post_attention_layernorm.weight', [HIDDEN], 'norm'), ...attention,
    t('mlp.gate.weight', [EXPERTS, HIDDEN], 'router', null, 'router'), ...experts,
    t('mlp.shared_expert.gate_proj.weight', [5, HIDDEN], 'shared_expert', 'ffn_input'), t('mlp.shared_expert.up_proj.weight', [5, HIDDEN], 'shared_expert', 'ffn_input'),
    t('mlp.shared_expert.down_proj.weight', [HIDDEN, 5], 'shared_expert'), t('mlp.shared_expert_gate.weight', [1, HIDDEN], 'router', null, 'router'),
  ];
}

export const NEXT_TENSORS: readonly NextTensor[] = [
  { name: 'model.embed_tokens.weight', shape: [VOCAB, HIDDEN], rule: 'embedding', component: null, layer: null, projector: null },
  ...Array.from({ length: LAYERS }, (_, l) => layerTensors(l)).flat(),
  { name: 'model.norm.weight', shape: [HIDDEN], rule: 'crane', component: 'norm', layer: null, projector: null },
  { name: 'mtp.fc.weight', shape: [HIDDEN, 2 * HIDDEN], rule: 'crane', component: 'other', layer: null, projector: null },
  { name: 'lm_head.weight', shape: [VOCAB, HIDDEN], rule: 'lm_head', component: null, layer: null, projector: null },
];

/** θ_I (norms zero-centred around 0, as Qwen3-Next stores them) and θ_T = θ_I + a seeded δ. */
export function nextValues(tensor: NextTensor, side: 'instruct' | 'thinking'): Float32Array {
  const size = tensor.shape.reduce((a, b) => a * b, 1);
  const base = new SeededRandom(hashName(tensor.name));
  const delta = new SeededRandom(hashName(`${tensor.name}#delta`));
  return Float32Array.from({ length: size }, () => {
    const theta = 0.2 * (2 * base.next() - 1);
    return side === 'instruct' ? theta : theta + 0.02 * (2 * delta.next() - 1);
  });
}

export async function writeNextPair(root: string, extra: readonly { name: string; shape: number[] }[] = []): Promise<{ instruct: string; thinking: string }> {
  const side = (which: 'instruct' | 'thinking') => [
    ...NEXT_TENSORS.map((t) => ({ spec: { name: t.name, dtype: 'F32' as const, shape: [...t.shape] }, data: nextValues(t, which) })),
    ...extra.map(({ name, shape }) => ({ spec: { name, dtype: 'F32' as const, shape }, data: new Float32Array(shape.reduce((a, b) => a * b, 1)) })),
  ];
  return {
    instruct: await writeFixtureCheckpoint(join(root, 'instruct'), side('instruct'), { config: NEXT_CONFIG }),
    thinking: await writeFixtureCheckpoint(join(root, 'thinking'), side('thinking'), { config: NEXT_CONFIG }),
  };
}

/** The run's S: per layer (layer 2 lacks shared_expert, which then falls back to the per-component value) and per component. */
export const NEXT_STATS = {
  per_layer_S_reason: {
    0: { linear_attn: 0.4, expert: 1, shared_expert: 0.7, norm: 0.2 },
    1: { linear_attn: 1.6, expert: 1, shared_expert: 0.3, norm: 0.9 },
    2: { linear_attn: 0, expert: 1, norm: 0.5 },
    3: { attention: 0.8, expert: 1, shared_expert: 1.2, norm: 0.1 },
  },
  per_component_S_reason: { attention: 0.8, linear_attn: 0.6, expert: 1, shared_expert: 0.45, norm: 0.35 },
  metadata: { family: 'next', baseline_component: 'expert', model_preset: 'qwen3-next-80b' },
};

export interface HandProjector {
  readonly dim: number;
  /** d × r, row-major, orthonormal columns. */
  readonly basis: Float32Array;
  readonly sigma: Float32Array;
}

/** Orthonormal columns by Gram–Schmidt on seeded vectors, σ spanning the mask's range (w ≈ 1, ½, ≈ 0). */
function handProjector(key: string, dim: number): HandProjector {
  const random = new SeededRandom(hashName(key));
  const sigma = Float32Array.of(2, 0.06, 0.002);
  const columns: number[][] = [];
  while (columns.length < sigma.length) {
    const v = Array.from({ length: dim }, () => 2 * random.next() - 1);
    for (const c of columns) {
      const dot = v.reduce((s, x, i) => s + x * (c[i] as number), 0);
      c.forEach((x, i) => { v[i] = (v[i] as number) - dot * x; });
    }
    const norm = Math.hypot(...v);
    columns.push(v.map((x) => x / norm));
  }
  const basis = new Float32Array(dim * sigma.length);
  columns.forEach((c, j) => c.forEach((x, i) => { basis[i * sigma.length + j] = x; }));
  return { dim, basis, sigma };
}

export const NEXT_PROJECTORS: ReadonlyMap<string, HandProjector> = new Map([
  ...[0, 1, 2, 3].flatMap((l) => [[`layer_${l}_attn_input`, handProjector(`a${l}`, HIDDEN)], [`layer_${l}_ffn_input`, handProjector(`f${l}`, HIDDEN)]] as const),
  ...[0, 1, 2].map((l) => [`layer_${l}_linattn_inner`, handProjector(`i${l}`, VALUE_DIM)] as const),
]);

function torchProjectors(keys: (key: string) => boolean): TorchValue {
  return new Map([...NEXT_PROJECTORS].filter(([key]) => keys(key)).map(([key, p]): [string, TorchValue] => [key, new Map<string, TorchValue>([
    ['V_r', { kind: 'tensor', dtype: 'F32', shape: [p.dim, p.sigma.length], values: p.basis }],
    ['sigma', { kind: 'tensor', dtype: 'F32', shape: [p.sigma.length], values: p.sigma }],
  ])]));
}

/** The reference run's three files in `dir`, under the names its scripts give them. */
export async function writeNextReferenceRun(dir: string): Promise<{ stats: string; projectors: string; projectorsLinattn: string }> {
  await mkdir(dir, { recursive: true });
  const files = { stats: join(dir, 'phase2_stats.json'), projectors: join(dir, 'format_projectors.pt'), projectorsLinattn: join(dir, 'format_projectors_linattn_inner.pt') };
  await writeFile(files.stats, JSON.stringify(NEXT_STATS, null, 2));
  await writeTorchFile(files.projectors, torchProjectors((key) => !key.endsWith('linattn_inner')));
  await writeTorchFile(files.projectorsLinattn, torchProjectors((key) => key.endsWith('linattn_inner')));
  return files;
}
