/**
 * Per-Linear input means of a sparse MoE layer against a plain-loop computation from the float64
 * golden captures (post-attention-norm rows) and the checkpoint's router and expert weights:
 * routing (softmax, top-k) and each expert's SwiGLU are recomputed in JS, independently of tfjs.
 */
import { describe, expect, it } from 'vitest';
import { loadCausalLM } from './causal-lm.ts';
import { goldenNormRows, moeGolden, useMoeCheckpoint } from './testing/moe-golden.ts';

const openCheckpoint = useMoeCheckpoint();

/** rows [n][in] · Wᵀ for W stored [out, in]. */
const linear = (rows: number[][], w: Float32Array, out: number): number[][] =>
  rows.map((x) => Array.from({ length: out }, (_, o) => x.reduce((s, v, j) => s + v * (w[o * x.length + j] as number), 0)));

const meanAbs = (rows: number[][]): number[] => (rows[0] as number[]).map((_, j) => rows.reduce((s, r) => s + Math.abs(r[j] as number), 0) / rows.length);

describe('linearInputMeans on a sparse MoE layer', () => {
  it('gives the router every position and each expert only its routed tokens (gate/up: norm output, down: SwiGLU)', async () => {
    const model = loadCausalLM(openCheckpoint());
    const moe = model.spec.moe;
    if (moe === undefined) throw new Error('qwen3_moe_experts is not an MoE checkpoint');
    const sequence = 1;
    const layer = 2;
    const got = new Map<string, Float32Array>();
    await model.linearInputMeans([moeGolden.sequences[sequence] as number[]], (m) => {
      if (m.layer === layer) m.means.forEach((v, k) => got.set(k.slice(`model.layers.${layer}.`.length), v));
    });
    const rows = goldenNormRows(sequence, layer);
    const read = (key: string) => openCheckpoint().readFloat32(`model.layers.${layer}.${key}`);
    const logits = linear(rows, await read('mlp.gate.weight'), moe.numExperts);
    const chosen = logits.map((z) => z.map((_, e) => e).sort((a, b) => (z[b] as number) - (z[a] as number)).slice(0, moe.expertsPerToken));
    const want = new Map<string, number[]>([['mlp.gate', meanAbs(rows)]]);
    for (let e = 0; e < moe.numExperts; e++) {
      const mine = rows.filter((_, t) => (chosen[t] as number[]).includes(e));
      if (mine.length === 0) continue;
      const inner = moe.expertIntermediateSize;
      const g = linear(mine, await read(`mlp.experts.${e}.gate_proj.weight`), inner);
      const u = linear(mine, await read(`mlp.experts.${e}.up_proj.weight`), inner);
      const hidden = g.map((row, t) => row.map((v, i) => (v / (1 + Math.exp(-v))) * ((u[t] as number[])[i] as number)));
      want.set(`mlp.experts.${e}.gate_proj`, meanAbs(mine));
      want.set(`mlp.experts.${e}.up_proj`, meanAbs(mine));
      want.set(`mlp.experts.${e}.down_proj`, meanAbs(hidden));
    }
    const attention = ['self_attn.q_proj', 'self_attn.k_proj', 'self_attn.v_proj', 'self_attn.o_proj'];
    expect([...got.keys()].sort()).toEqual([...attention, ...want.keys()].sort());
    for (const [module, mean] of want) {
      const g = got.get(module) as Float32Array;
      mean.forEach((v, j) => expect(Math.abs((g[j] as number) - v), `${module}[${j}]`).toBeLessThan(1e-4 * Math.max(1, Math.abs(v))));
    }
  });
});
