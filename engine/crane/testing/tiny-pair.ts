/**
 * A tiny random Qwen3-shaped pair (2 layers, hidden 4) for cross-checks, with every tensor's
 * group and projector key written out by hand rather than derived by the classifier.
 * Values are multiples of 2⁻¹⁰ in [−1, 1], so θ_T − θ_I is exact in float32 and float64 alike.
 */

export interface TinyTensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly group: 'attention' | 'ffn' | 'norm' | 'final_norm' | 'embed' | 'lm_head';
  readonly layer: number | null;
  readonly gsp: 'attn_input' | 'ffn_input' | null;
  readonly thetaI: Float32Array;
  readonly thetaT: Float32Array;
  readonly gradR: Float32Array;
  readonly gradA: Float32Array;
}

export interface TinyPair {
  readonly tensors: readonly TinyTensor[];
  /** Captured activation rows (N × 4) per projector key `layer_{l}_{key}`. */
  readonly activations: ReadonlyMap<string, Float32Array>;
}

export const TINY_HIDDEN = 4;

export function tinyPair(seed: number): TinyPair {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return Math.round((state / 2 ** 32) * 2048 - 1024) / 1024;
  };
  const values = (n: number) => Float32Array.from({ length: n }, next);
  const tensor = (name: string, shape: number[], group: TinyTensor['group'], layer: number | null, gsp: TinyTensor['gsp']): TinyTensor => {
    const n = shape.reduce((a, b) => a * b, 1);
    const thetaI = values(n);
    // A sparse-ish, scaled delta so that thresholding has work to do.
    const thetaT = thetaI.map((v) => v + next() / 8);
    return { name, shape, group, layer, gsp, thetaI, thetaT, gradR: values(n), gradA: values(n) };
  };
  const h = TINY_HIDDEN;
  const tensors: TinyTensor[] = [tensor('model.embed_tokens.weight', [6, h], 'embed', null, null)];
  const activations = new Map<string, Float32Array>();
  for (const l of [0, 1]) {
    const p = `model.layers.${l}.`;
    tensors.push(
      tensor(`${p}input_layernorm.weight`, [h], 'norm', l, null),
      tensor(`${p}self_attn.q_proj.weight`, [4, h], 'attention', l, 'attn_input'),
      tensor(`${p}self_attn.k_proj.weight`, [2, h], 'attention', l, 'attn_input'),
      tensor(`${p}self_attn.v_proj.weight`, [2, h], 'attention', l, 'attn_input'),
      tensor(`${p}self_attn.o_proj.weight`, [h, 4], 'attention', l, null),
      tensor(`${p}self_attn.q_norm.weight`, [2], 'attention', l, null),
      tensor(`${p}self_attn.k_norm.weight`, [2], 'attention', l, null),
      tensor(`${p}post_attention_layernorm.weight`, [h], 'norm', l, null),
      tensor(`${p}mlp.gate_proj.weight`, [6, h], 'ffn', l, 'ffn_input'),
      tensor(`${p}mlp.up_proj.weight`, [6, h], 'ffn', l, 'ffn_input'),
      tensor(`${p}mlp.down_proj.weight`, [h, 6], 'ffn', l, null),
    );
    // Rows with one dominant direction plus smaller ones, so the sigmoid weights are graded.
    const columnScale = [4, 1, 0.3, 0.05];
    for (const key of ['attn_input', 'ffn_input']) {
      activations.set(`layer_${l}_${key}`, Float32Array.from({ length: 9 * h }, (_, i) => next() * (columnScale[i % h] as number)));
    }
  }
  tensors.push(tensor('model.norm.weight', [h], 'final_norm', null, null), tensor('lm_head.weight', [6, h], 'lm_head', null, null));
  return { tensors, activations };
}
