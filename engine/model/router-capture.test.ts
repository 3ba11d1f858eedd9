/**
 * captureRouting on the committed tiny MoE checkpoint against routing recomputed in plain JS
 * from the float64 golden captures (post-attention-norm rows) and the checkpoint's routers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { initBackend } from '../tensor/backend.ts';
import { loadCausalLM } from './causal-lm.ts';
import { captureRouting, type LayerRouting } from './router-capture.ts';

const DIR = join(import.meta.dirname, 'testdata', 'qwen3_moe_experts');
const golden = JSON.parse(readFileSync(join(DIR, 'golden.json'), 'utf8')) as { sequences: number[][]; captures: { post_attention_layernorm: number[][][] }[] };
let checkpoint: Checkpoint;

beforeAll(async () => {
  await initBackend('wasm');
  checkpoint = await Checkpoint.open(DIR);
});

afterAll(() => checkpoint.close());

describe('captureRouting', () => {
  it('reports every sparse layer (not the mlp_only one) with the top-k of the router softmax', async () => {
    const model = loadCausalLM(checkpoint);
    const seen: LayerRouting[] = [];
    await captureRouting(model.context, golden.sequences, (r) => void seen.push(r));
    expect(seen.map((r) => `${r.layer}/${r.sequence}`)).toEqual(['0/0', '0/1', '2/0', '2/1']);
    for (const { layer, sequence, routing } of seen) {
      const rows = (golden.captures[sequence] as { post_attention_layernorm: number[][][] }).post_attention_layernorm[layer] as number[][];
      const router = await checkpoint.readFloat32(`model.layers.${layer}.mlp.gate.weight`);
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
