/**
 * RAIN on a tiny three-checkpoint set, end to end, against second formulations:
 * - the calibration files' token positions decode back to the span text (and the think tags);
 * - stage 1: each head's projected q slice nearly zeroes xᵢᵀ Δ kⱼ on every <think>/</think> pair
 *   (radius 2 gives 6 pairs ≤ the reference's 8 Q rows, so every pair is a constraint), with X
 *   captured independently (captureActivations) and K by plain loops;
 * - stage 2: α from alignment/leak recomputed with masked bilinear forms on attention captured
 *   from Thinking and from Thinking + prior·proj(τ) written per element, then the reference's
 *   diagonal closed form (both 1e-6 jitters) by hand;
 * - stage 3: merged − thinking is α_h times the head's slice, nothing else moves.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatTemplate } from '../calibration/chat-template.ts';
import type { ModelTokenizer } from '../calibration/tokenizer.ts';
import { referenceAlignLeak } from '../crane/testing/reference-rain.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { captureRainFeatures } from '../model/rain-features.ts';
import { withOverrides } from '../model/testing/override-source.ts';
import { DEFAULT_BASELINES } from '../protocol/settings-defaults.ts';
import { initBackend } from '../tensor/backend.ts';
import { loadCheckpointTokenizer } from './checkpoint-tokenizer.ts';
import { computeRainAlpha } from './rain-alpha.ts';
import { readRainInstructionPrompts, readRainReasoningPrompts, type RainInstructionPrompt, type RainReasoningPrompt } from './rain-calibration.ts';
import { runRainMerge, type RainMerge } from './rain-merge.ts';
import { computeRainProjections, rainLayers, rainTensorName, type RainProjections } from './rain-projections.ts';
import { RAIN_INSTRUCTIONS, writeRainTriple, type RainTriple } from './testing/rain-triple.ts';

const SETTINGS = { ...DEFAULT_BASELINES.rain, radius: 2, layersTail: 2, qpMaxTokens: 48 };

let root: string;
let triple: RainTriple;
let tokenizer: ModelTokenizer;
let template: ChatTemplate;
let reasoning: { prompts: RainReasoningPrompt[]; skipped: number };
let instructions: RainInstructionPrompt[];
const open: Checkpoint[] = [];

beforeAll(async () => {
  await initBackend('wasm');
  root = await mkdtemp(join(tmpdir(), 'crane-rain-'));
  triple = await writeRainTriple(root);
  tokenizer = await loadCheckpointTokenizer(triple.thinking);
  template = ChatTemplate.fromTokenizer(tokenizer);
  reasoning = await readRainReasoningPrompts(triple.reasoning, tokenizer, template, 1000);
  instructions = await readRainInstructionPrompts(triple.instructions, tokenizer, template, SETTINGS.qpMaxTokens);
});

afterAll(async () => {
  for (const c of open) await c.close();
  await rm(root, { recursive: true, force: true });
});

async function openAll(): Promise<{ base: Checkpoint; instruct: Checkpoint; thinking: Checkpoint }> {
  const [base, instruct, thinking] = [await Checkpoint.open(triple.base), await Checkpoint.open(triple.instruct), await Checkpoint.open(triple.thinking)];
  open.push(base, instruct, thinking);
  return { base, instruct, thinking };
}

const decode = (ids: readonly number[], from: number, to: number) => tokenizer.decode(ids.slice(from, to + 1));

describe('RAIN calibration files', () => {
  it('finds <think> and </think> tokens and skips a prompt without both', () => {
    expect(reasoning.skipped).toBe(1);
    expect(reasoning.prompts).toHaveLength(2);
    for (const p of reasoning.prompts) {
      expect(decode(p.ids, p.thinkStart, p.thinkStart)).toBe('<think>');
      expect(decode(p.ids, p.thinkEnd, p.thinkEnd)).toBe('</think>');
    }
  });

  it('maps every span occurrence to tokens that decode to text containing it; the cut drops positions, not counts', async () => {
    const [first] = instructions;
    const style = first?.spans.instructions[0];
    expect(style?.relatedCount).toBe(2);
    expect(style?.unrelatedCount).toBe(1);
    const text = (indices: readonly number[]) => tokenizer.decode(indices.map((i) => first?.ids[i] as number));
    expect(text(style?.instruction ?? [])).toContain('Rome style');
    // 'is' occurs several times in the whole text (prompt, reasoning, response): each occurrence counts
    const whole = `${template.render([{ role: 'user', content: RAIN_INSTRUCTIONS[0]?.prompt ?? '' }], { addGenerationPrompt: true })}${RAIN_INSTRUCTIONS[0]?.reason}\n</think>\n\n${RAIN_INSTRUCTIONS[0]?.response}`;
    expect(first?.spans.globalUnrelatedCount).toBe(whole.split('is').length - 1);
    const uncut = await readRainInstructionPrompts(triple.instructions, tokenizer, template, 10_000);
    expect(uncut[0]?.ids.length).toBeGreaterThan(SETTINGS.qpMaxTokens);
    expect(first?.ids).toEqual(uncut[0]?.ids.slice(0, SETTINGS.qpMaxTokens));
    expect(first?.spans).toEqual(uncut[0]?.spans);
    expect(instructions[2]?.spans.instructions).toEqual([]);
  });

  it('refuses a line that is not JSON or not a sample, naming file:line', async () => {
    const bad = join(root, 'bad.jsonl');
    await writeFile(bad, `${JSON.stringify(RAIN_INSTRUCTIONS[1])}\n{"prompt": 3}\n`);
    await expect(readRainInstructionPrompts(bad, tokenizer, template, 64)).rejects.toThrow(/bad\.jsonl:2.*is not an instruction sample/s);
    await writeFile(bad, 'not json\n');
    await expect(readRainInstructionPrompts(bad, tokenizer, template, 64)).rejects.toThrow(/bad\.jsonl:1.*is not JSON/s);
  });
});

describe('RAIN stages on the tiny triple', () => {
  let projections: RainProjections;
  let merge: RainMerge;

  beforeAll(async () => {
    const { base, instruct, thinking } = await openAll();
    const model = loadCausalLM(thinking);
    projections = await computeRainProjections({ thinking: model, base, instruct, prompts: reasoning.prompts, layers: rainLayers(model.spec.numLayers, SETTINGS.layersTail), settings: SETTINGS });
    merge = await runRainMerge({ base, instruct, thinking, calibration: { reasoning: triple.reasoning, instructions: triple.instructions }, settings: SETTINGS });
  });

  it('stage 1: the projected q slices keep the thinking model\'s <think>/</think> logits (xᵢᵀ Δ kⱼ ≈ 0)', async () => {
    const { thinking, base, instruct } = await openAll();
    const model = loadCausalLM(thinking);
    const { hiddenSize: d, headDim: hd, numKvHeads: kvHeads, numHeads } = model.spec;
    for (const prompt of reasoning.prompts) {
      const x = new Map<number, Float32Array>();
      const positions = prompt.ids.map((_, i) => i);
      await model.captureActivations([{ ids: prompt.ids, positions }], (a) => { x.set(a.layer, a.attnInput); });
      const pairs = [0, 1, 2].flatMap((r) => [[prompt.thinkStart, prompt.thinkStart + r], [prompt.thinkEnd - r, prompt.thinkEnd]]);
      for (const layer of projections.layers) {
        const name = rainTensorName(layer, 'q');
        const [wk, wq, wqBase] = [await thinking.readFloat32(rainTensorName(layer, 'k')), await instruct.readFloat32(name), await base.readFloat32(name)];
        const input = x.get(layer) as Float32Array;
        for (let head = 0; head < numHeads; head++) {
          const kv = head % kvHeads;
          const slice = projections.slices.get(name)?.heads[head] as Float64Array;
          let [worstProjected, worstRaw] = [0, 0];
          for (const [i, j] of pairs as [number, number][]) {
            let [projected, raw] = [0, 0];
            for (let b = 0; b < hd; b++) {
              let key = 0;
              for (let a = 0; a < d; a++) key += (input[j * d + a] as number) * (wk[(kv * hd + b) * d + a] as number);
              for (let a = 0; a < d; a++) {
                const xa = input[i * d + a] as number;
                projected += xa * (slice[a * hd + b] as number) * key;
                raw += xa * ((wq[(head * hd + b) * d + a] as number) - (wqBase[(head * hd + b) * d + a] as number)) * key;
              }
            }
            worstProjected = Math.max(worstProjected, Math.abs(projected));
            worstRaw = Math.max(worstRaw, Math.abs(raw));
          }
          expect(worstRaw).toBeGreaterThan(1e-4);
          expect(worstProjected).toBeLessThan(1e-3 * worstRaw);
        }
      }
    }
  });

  it('stage 2: α is the reference\'s closed form on alignment/leak measured before and after prior·proj(τ)', async () => {
    const { thinking } = await openAll();
    const { alpha, statistics } = await computeRainAlpha({ thinking, projections, prompts: instructions, settings: SETTINGS });
    const heads = projections.heads;
    // Pass-2 weights written per element: W_T[row, a] += prior · slice[a, b] at q/k/v rows, W_T[a, col] for o.
    const applied = new Map<string, Float32Array>();
    for (const [name, { tensor, heads: slices }] of projections.slices) {
      const w = Float64Array.from(await thinking.readFloat32(name));
      const [, cols] = tensor.shape;
      slices.forEach((slice, head) => {
        const block = tensor.kind === 'k' || tensor.kind === 'v' ? head % tensor.kvHeads : head;
        for (let a = 0; a < slice.length / tensor.headDim; a++) {
          for (let b = 0; b < tensor.headDim; b++) {
            const at = tensor.kind === 'o' ? a * cols + block * tensor.headDim + b : (block * tensor.headDim + b) * cols + a;
            w[at] = (w[at] as number) + SETTINGS.priorScalar * (slice[a * tensor.headDim + b] as number);
          }
        }
      });
      applied.set(name, Float32Array.from(w));
    }
    const measure = async (source: Parameters<typeof loadCausalLM>[0]) => {
      const model = loadCausalLM(source);
      const perPrompt: { a: number; u: number }[][] = [];
      for (const prompt of instructions) {
        const values = Array.from({ length: projections.layers.length * heads }, () => ({ a: 0, u: 0 }));
        await captureRainFeatures(model.context, prompt.ids, projections.layers, (c) => {
          for (let h = 0; h < heads; h++) {
            const flat = c.attention(h);
            const rows = Array.from({ length: c.length }, (_, i) => Array.from(flat.subarray(i * c.length, (i + 1) * c.length)));
            const k = prompt.spans.instructions.map((s) => ({ i: s.instruction, r: s.related, u: s.unrelated, rCount: s.relatedCount, uCount: s.unrelatedCount }));
            values[projections.layers.indexOf(c.layer) * heads + h] = referenceAlignLeak(rows, k, prompt.spans.globalUnrelated, prompt.spans.globalUnrelatedCount);
          }
        });
        perPrompt.push(values);
      }
      return perPrompt;
    };
    const [before, after] = [await measure(thinking), await measure(withOverrides(thinking, applied))];
    const samples = instructions.length;
    alpha.forEach((got, i) => {
      const sum = (f: (s: number) => number) => Array.from({ length: samples }, (_, s) => f(s)).reduce((x, y) => x + y, 0);
      const dA = sum((s) => (after[s]?.[i]?.a as number) - (before[s]?.[i]?.a as number));
      const dU = sum((s) => (after[s]?.[i]?.u as number) - (before[s]?.[i]?.u as number));
      const u1 = sum((s) => after[s]?.[i]?.u as number);
      expect(statistics[i]?.alignmentGain).toBeCloseTo(dA, 5);
      expect(statistics[i]?.leakAfter).toBeCloseTo(u1, 5);
      const h = samples * SETTINGS.hLambda + SETTINGS.hMu * u1 + 1e-6;
      const b = dA - SETTINGS.rhoDu * dU;
      const expected = Math.min(SETTINGS.boxHi, Math.max(SETTINGS.boxLo, (b + SETTINGS.l2Prior * SETTINGS.priorScalar) / (h + SETTINGS.l2Prior + 1e-6)));
      expect(got).toBeCloseTo(expected, 5);
    });
    // The instruction prompts do move attention: not every head's α sits at the prior's fixed point.
    expect(statistics.some((s) => Math.abs(s.alignmentGain) > 1e-6)).toBe(true);
  });

  it('stage 3: merged − thinking is α_h times the head\'s projected slice on q/k/v/o of the last layers only', async () => {
    const { thinking } = await openAll();
    expect(merge.layers).toEqual([0, 1]);
    expect([...merge.tensors.keys()].sort()).toEqual(projections.layers.flatMap((l) => ['q', 'k', 'v', 'o'].map((k) => rainTensorName(l, k as 'q'))).sort());
    const name = rainTensorName(1, 'q');
    const [merged, original] = [merge.tensors.get(name) as Float32Array, await thinking.readFloat32(name)];
    const { headDim: hd } = projections.slices.get(name)?.tensor ?? { headDim: 0 };
    const cols = thinking.tensor(name).shape[1] as number;
    const slices = projections.slices.get(name)?.heads ?? [];
    for (let head = 0; head < projections.heads; head++) {
      const a = merge.alpha[projections.heads + head] as number;
      for (let b = 0; b < hd; b++) {
        for (let c = 0; c < cols; c++) {
          const at = (head * hd + b) * cols + c;
          expect((merged[at] as number) - (original[at] as number)).toBeCloseTo(a * ((slices[head] as Float64Array)[c * hd + b] as number), 5);
        }
      }
    }
  });

  it('refuses a Base that lacks a tensor of the pair, naming it', async () => {
    const { instruct, thinking } = await openAll();
    const partial = join(root, 'partial-base');
    await mkdir(partial);
    const source = await Checkpoint.open(triple.base);
    open.push(source);
    const dropped = rainTensorName(1, 'v');
    const kept = [...source.tensors.values()].filter((t) => t.name !== dropped);
    await writeSafetensors(join(partial, 'model.safetensors'), await Promise.all(kept.map(async (t) => ({ spec: { name: t.name, dtype: 'F32' as const, shape: t.shape }, data: await source.readFloat32(t.name) }))));
    await writeFile(join(partial, 'config.json'), JSON.stringify(source.config));
    const base = await Checkpoint.open(partial);
    open.push(base);
    await expect(runRainMerge({ base, instruct, thinking, calibration: { reasoning: triple.reasoning, instructions: triple.instructions }, settings: SETTINGS }))
      .rejects.toThrow(`missing from Base ${partial}: ${dropped}`);
  });
});
