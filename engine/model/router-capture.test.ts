/**
 * captureRouting on the committed tiny MoE checkpoint against routing recomputed in plain JS
 * from the float64 golden captures (post-attention-norm rows) and the checkpoint's routers.
 */
import { describe, expect, it } from 'vitest';
import { loadCausalLM } from './causal-lm.ts';
import { goldenNormRows, moeGolden, useMoeCheckpoint } from './testing/moe-golden.ts';
import { captureRouting, type LayerRouting } from './router-capture.ts';

const openCheckpoint = useMoeCheckpoint();

describe('captureRouting', () => {
  it('reports every sparse layer (not the mlp_only one) with the top-k of the router softmax', async () => {
    const model = loadCausalLM(openCheckpoint());
    const seen: LayerRouting[] = [];
    await captureRouting(model.context, moeGolden.sequences, (r) => void seen.push(r));
    expect(seen.map((r) => `${r.layer}/${r.sequence}`)).toEqual(['0/0', '0/1', '2/0', '2/1']);
    for (const { layer, sequence, routing } of seen) {
      const rows = goldenNormRows(sequence, layer);
      const router = await openCheckpoint().readFloat32(`model.layers.${layer}.mlp.gate.weight`);
      const e = routing.numExperts;
      rows.forEach((x, t) => {
        const z = Array.from({ length: e }, (_, o) => x.reduce((s, v, j) => s + v * (router[o * x.length + j] as number), 0));
        const top = Math.max(...z);
        const total = z.reduce((s, v) => s + Math.exp(v - top), 0);
        const p = z.map((v) => Math.exp(v - top) / total);
        p.forEach((v, o) => expect(Math.abs((routing.probs[t * e + o] as number) - v)).toBeLessThan(1e-5));
        const want = p.map((_, o) => o).sort((a, b) => (p[b] as number) - (p[a] as number)).slice(0, routing.expertsPerToken);
        expect(Array.from(routing.experts.subarray(t * routing.expertsPerToken, (t + 1) * routing.expertsPerToken))).toEqual(want);
      });
    }
  });
});
