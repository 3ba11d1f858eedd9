/**
 * Qwen3-Next through a reference run: a tiny Qwen3-Next-shaped pair (real names, tiny shapes)
 * merged from a hand-made phase2_stats.json + format_projectors.pt +
 * format_projectors_linattn_inner.pt equals an independent float64 computation of the reference
 * merge, tensor by tensor; tensors the studio does not know are refused by name before anything
 * is written.
 */
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyTensor } from '../crane/tensor-classification.ts';
import { applyProjector, Matrix, referenceThreshold } from '../crane/testing/reference-crane.ts';
import { exportMerge } from '../export/export-checkpoint.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { comparePair, type PairReport } from '../io/pair-report.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { referenceComponent } from './reference-components.ts';
import { importReferenceRun } from './reference-run.ts';
import {
  NEXT_PROJECTORS, NEXT_STATS, NEXT_TENSORS, NEXT_TOKENS, nextValues, writeNextPair, writeNextReferenceRun, type NextTensor,
} from './testing/tiny-next-pair.ts';

const ALPHA = 0.15;
const TAU = 0.03;
let root: string;
let pair: { instruct: string; thinking: string };
let analysisDir: string;
const settings: ResolvedCraneSettings = { ...defaultResolvedSettings(NEXT_TOKENS), alpha: ALPHA };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'crane-reference-next-'));
  pair = await writeNextPair(root);
  analysisDir = join(root, 'analysis');
  await importReferenceRun(await writeNextReferenceRun(join(root, 'run')), analysisDir);
});

afterAll(() => rm(root, { recursive: true, force: true }));

async function merge(instructDir: string, thinkingDir: string, outDir: string): Promise<void> {
  const [instruct, thinking] = [await Checkpoint.open(instructDir), await Checkpoint.open(thinkingDir)];
  try {
    await exportMerge({ instruct, thinking, method: { method: 'crane', settings }, analysisDir, dtype: 'F32', outDir });
  } finally {
    await Promise.all([instruct.close(), thinking.close()]);
  }
}

/** S as crane_merge.py's AlphaSource looks it up: the layer's entry, then the component's, then 1. */
function stated(component: string, layer: number | null): number {
  const perLayer = NEXT_STATS.per_layer_S_reason as Record<string, Record<string, number>>;
  const perComponent = NEXT_STATS.per_component_S_reason as Record<string, number>;
  return (layer === null ? undefined : perLayer[String(layer)]?.[component]) ?? perComponent[component] ?? 1;
}

/** P = I − V diag(w) Vᵀ, w = sigmoid((4.6/τ)(σ/σ₁ − τ)), from the hand-made V_r and σ. */
function projectorMatrix(key: string): Matrix {
  const p = NEXT_PROJECTORS.get(key);
  if (p === undefined) throw new Error(`no projector ${key}`);
  const rank = p.sigma.length;
  const m = Matrix.identity(p.dim);
  for (let c = 0; c < rank; c++) {
    const w = 1 / (1 + Math.exp(-(4.6 / TAU) * ((p.sigma[c] as number) / (p.sigma[0] as number) - TAU)));
    for (let i = 0; i < p.dim; i++) for (let j = 0; j < p.dim; j++) m.set(i, j, m.get(i, j) - w * (p.basis[i * rank + c] as number) * (p.basis[j * rank + c] as number));
  }
  return m;
}

/** The router rule: SLERP over the flattened tensor, t = α/3, linear where cos > 0.9995 (and for 1-D tensors). */
function routerSlerp(a: readonly number[], b: readonly number[], t: number): number[] {
  const dot = a.reduce((s, x, i) => s + x * (b[i] as number), 0);
  const [na, nb] = [Math.hypot(...a), Math.hypot(...b)];
  const cos = Math.min(1, Math.max(-1, dot / (na * nb)));
  if (cos > 0.9995) return a.map((x, i) => x + t * ((b[i] as number) - x));
  const omega = Math.acos(cos);
  return a.map((x, i) => (Math.sin((1 - t) * omega) * x + Math.sin(t * omega) * (b[i] as number)) / Math.sin(omega));
}

/** Rows `rows` of a [rows, cols] tensor set by `row(r, i)`. */
function withRows(values: number[], cols: number, rows: readonly number[], row: (i: number) => number): number[] {
  for (const r of rows) for (let c = 0; c < cols; c++) values[r * cols + c] = row(r * cols + c);
  return values;
}

function expected(tensor: NextTensor): number[] {
  const thetaI = [...nextValues(tensor, 'instruct')];
  const thetaT = [...nextValues(tensor, 'thinking')];
  const delta = thetaI.map((x, i) => Math.fround((thetaT[i] as number) - x));
  const cols = tensor.shape[1] ?? 1;
  const think = (i: number) => (thetaI[i] as number) + 0.8 * (delta[i] as number);
  switch (tensor.rule) {
    case 'embedding': return withRows([...thetaI], cols, NEXT_TOKENS.think, think);
    case 'lm_head': {
      const scaled = thetaI.map((x, i) => x + 0.03 * (delta[i] as number));
      return withRows(withRows(scaled, cols, NEXT_TOKENS.special, (i) => thetaI[i] as number), cols, NEXT_TOKENS.think, think);
    }
    case 'router': return routerSlerp(thetaI, thetaT, ALPHA / 3);
    case 'crane': {
      const scale = ALPHA * stated(tensor.component as string, tensor.layer);
      const edit = referenceThreshold(delta).map((d) => scale * d);
      const projected = tensor.projector === null ? edit : applyProjector(edit, projectorMatrix(tensor.projector));
      return thetaI.map((x, i) => x + (projected[i] as number));
    }
  }
}

describe('Qwen3-Next tensors in the CRANE groups', () => {
  it('puts every tensor in the reference\'s component, layer and projector key', () => {
    for (const tensor of NEXT_TENSORS.filter((t) => t.rule !== 'embedding' && t.rule !== 'lm_head')) {
      const c = classifyTensor(tensor.name);
      const component = c.group === 'final_norm' ? 'norm' : c.group === 'embed' || c.group === 'lm_head' ? c.group : referenceComponent({ group: c.group, block: null });
      expect(component, tensor.name).toBe(tensor.component);
      expect(c.rule, tensor.name).toBe(tensor.rule);
      expect(c.gspKey === null || c.layer === null ? null : `layer_${c.layer}_${c.gspKey}`, tensor.name).toBe(tensor.projector);
    }
  });
});

describe('merge from an imported reference run', () => {
  it('writes every tensor as the independent computation of the reference merge', async () => {
    const outDir = join(root, 'merged');
    await merge(pair.instruct, pair.thinking, outDir);
    const merged = await Checkpoint.open(outDir);
    try {
      expect([...merged.tensors.keys()].sort()).toEqual(NEXT_TENSORS.map((t) => t.name).sort());
      for (const tensor of NEXT_TENSORS) {
        const got = await merged.readFloat32(tensor.name);
        const want = expected(tensor);
        const worst = want.reduce((m, w, i) => Math.max(m, Math.abs(w - (got[i] as number))), 0);
        expect(worst, tensor.name).toBeLessThan(2e-7);
      }
    } finally {
      await merged.close();
    }
  });

  it('edits: the run\'s S and projectors move the weights away from θ_I, and S = 0 keeps a block at θ_I', () => {
    const [outProj0, outProj2] = ['model.layers.0.linear_attn.out_proj.weight', 'model.layers.2.linear_attn.out_proj.weight']
      .map((name) => NEXT_TENSORS.find((t) => t.name === name) as NextTensor);
    const moved = expected(outProj0 as NextTensor).some((x, i) => x !== nextValues(outProj0 as NextTensor, 'instruct')[i]);
    expect(moved).toBe(true);
    expect(expected(outProj2 as NextTensor)).toEqual([...nextValues(outProj2 as NextTensor, 'instruct')]);
  });
});

async function report(dirs: { instruct: string; thinking: string }): Promise<PairReport> {
  const [instruct, thinking] = [await Checkpoint.open(dirs.instruct), await Checkpoint.open(dirs.thinking)];
  try {
    return await comparePair(instruct, thinking);
  } finally {
    await Promise.all([instruct.close(), thinking.close()]);
  }
}

describe('tensors the studio does not know', () => {
  const strays = [
    { name: 'model.layers.0.linear_attn.in_proj_qkvz.bias', shape: [20] },
    { name: 'model.layers.3.linear_attn.A_log', shape: [2] },
    { name: 'model.layers.1.self_attn.q_proj.weight', shape: [16, 8] },
    { name: 'model.layers.0.mlp.experts.4.up_proj.weight', shape: [3, 8] },
    { name: 'model.layers.4.input_layernorm.weight', shape: [8] },
    { name: 'visual.merger.weight', shape: [2] },
  ];

  it('the pair report says Qwen3-Next is merged from a reference run, and names each unknown tensor as an error', async () => {
    const clean = await report(pair);
    expect(clean.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(clean.findings.find((f) => f.code === 'reference-only')?.message).toMatch(/Qwen3-Next has no runtime.*format_projectors_linattn_inner\.pt/);

    const odd = await report(await writeNextPair(join(root, 'odd'), strays));
    const errors = odd.findings.filter((f) => f.severity === 'error').map((f) => f.message);
    expect(odd.verdict).toBe('refused');
    expect(errors.slice(0, 5)).toEqual([
      expect.stringMatching(/^tensor model\.layers\.0\.linear_attn\.in_proj_qkvz\.bias is not a Qwen3-Next layer tensor/),
      expect.stringMatching(/^tensor model\.layers\.3\.linear_attn\.A_log is a gated DeltaNet tensor in a full-attention layer/),
      expect.stringMatching(/^tensor model\.layers\.1\.self_attn\.q_proj\.weight is a full-attention tensor in a linear-attention/),
      expect.stringMatching(/^tensor model\.layers\.0\.mlp\.experts\.4\.up_proj\.weight is routed expert 4, past num_experts 4/),
      expect.stringMatching(/^tensor model\.layers\.4\.input_layernorm\.weight is in layer 4, past num_hidden_layers 4/),
    ]);
    expect(errors[5]).toMatch(/and 1 more/);
  });

  it('refuses to export such a pair, naming the tensor, and writes nothing', async () => {
    const odd = await writeNextPair(join(root, 'odd-export'), strays.slice(5));
    const outDir = join(root, 'refused');
    await expect(merge(odd.instruct, odd.thinking, outDir)).rejects.toThrow(/tensor visual\.merger\.weight is not a Qwen3-Next tensor/);
    await expect(access(outDir)).rejects.toThrow();
  });
});
