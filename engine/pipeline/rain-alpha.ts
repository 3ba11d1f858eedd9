/**
 * RAIN stage 2 on a model (qp_true_forward_fast.py, the two-pass "align_leak" variant rain.py
 * runs): the per-head merge coefficients α from the Thinking model's attention on instruction
 * prompts, before and after the projected task vector is added at the prior α.
 *
 *   rainEditedTensors(thinking, projections, alphaOf) → q/k/v/o weights with α·proj(τ) added
 *   rainWeightSource(thinking, tensors) → Thinking with those tensors in place (a WeightSource)
 *   computeRainAlpha(input) → { alpha, statistics }: α per (layer, head), layer-major
 *
 * Pass 1 measures each head's alignment a₀ and leak u₀ (rain-align-leak.ts) on every prompt with
 * the model's true attention (the reference reads output_attentions); the whole projected τ is
 * then applied with α = prior on every head (Q, K, V and O: V/O take their head's α) and pass 2
 * measures a₁, u₁. Σ(a₁ − a₀), Σ(u₁ − u₀) and Σu₁ over the S prompts give the diagonal QP
 * (rain-qp.ts) whose box-constrained solution is α*. The reference's defaults: prior 1, l2_prior
 * 0.1, l1 0, box [0, 1.5], H_λ 1, H_μ 1, ρ 0.5.
 */
import { rainAlignLeak } from '../crane/rain-align-leak.ts';
import { applyRainSlices } from '../crane/rain-edit.ts';
import { rainQpTerms, solveRainQp, type RainHeadStatistics } from '../crane/rain-qp.ts';
import { loadCausalLM, type CausalLM } from '../model/causal-lm.ts';
import { captureRainFeatures } from '../model/rain-features.ts';
import type { WeightSource } from '../model/weights.ts';
import type { RainInstructionPrompt } from './rain-calibration.ts';
import type { RainProjections } from './rain-projections.ts';

export interface RainAlphaSettings {
  readonly priorScalar: number;
  readonly l2Prior: number;
  readonly boxLo: number;
  readonly boxHi: number;
  readonly hLambda: number;
  readonly hMu: number;
  readonly rhoDu: number;
}

export interface RainAlphaInput {
  readonly thinking: WeightSource;
  readonly projections: RainProjections;
  readonly prompts: readonly RainInstructionPrompt[];
  readonly settings: RainAlphaSettings;
  readonly onProgress?: (fraction: number, text: string) => void;
}

export interface RainAlpha {
  /** α of (layers[i], head h) at i·heads + h. */
  readonly alpha: Float64Array;
  readonly statistics: readonly RainHeadStatistics[];
}

export async function rainEditedTensors(thinking: WeightSource, projections: RainProjections, alphaOf: (layerIndex: number, head: number) => number): Promise<Map<string, Float32Array>> {
  const edited = new Map<string, Float32Array>();
  for (const [name, { tensor, layer, heads }] of projections.slices) {
    const layerIndex = projections.layers.indexOf(layer);
    const edits = heads.map((slice, head) => ({ head, alpha: alphaOf(layerIndex, head), slice }));
    edited.set(name, applyRainSlices(tensor, await thinking.readFloat32(name), edits));
  }
  return edited;
}

export function rainWeightSource(thinking: WeightSource, tensors: ReadonlyMap<string, Float32Array>): WeightSource {
  return {
    dir: thinking.dir,
    config: thinking.config,
    tensors: thinking.tensors,
    tensor: (name) => thinking.tensor(name),
    readFloat32: async (name) => tensors.get(name) ?? thinking.readFloat32(name),
  };
}

export async function computeRainAlpha(input: RainAlphaInput): Promise<RainAlpha> {
  const { projections, prompts, settings } = input;
  const n = projections.layers.length * projections.heads;
  const report = (pass: number) => (done: number) => input.onProgress?.((pass + done / Math.max(1, prompts.length)) / 2, `RAIN α pass ${pass + 1}/2, prompt ${done}/${prompts.length}`);
  const anchor = await alignLeakPerPrompt(loadCausalLM(input.thinking), input, report(0));
  const applied = await rainEditedTensors(input.thinking, projections, () => settings.priorScalar);
  const post = await alignLeakPerPrompt(loadCausalLM(rainWeightSource(input.thinking, applied)), input, report(1));
  const statistics = Array.from({ length: n }, (_, i) => {
    let [alignmentGain, leakGain, leakAfter] = [0, 0, 0];
    prompts.forEach((_, s) => {
      const [before, after] = [anchor[s] as Float64Array, post[s] as Float64Array];
      alignmentGain += (after[2 * i] as number) - (before[2 * i] as number);
      leakGain += (after[2 * i + 1] as number) - (before[2 * i + 1] as number);
      leakAfter += after[2 * i + 1] as number;
    });
    return { alignmentGain, leakGain, leakAfter };
  });
  const { hessian, linear } = rainQpTerms(statistics, { samples: prompts.length, hLambda: settings.hLambda, hMu: settings.hMu, rhoDu: settings.rhoDu });
  const alpha = solveRainQp({ n, hessian, linear, prior: new Float64Array(n).fill(settings.priorScalar), l2Prior: settings.l2Prior, l1: 0, lo: settings.boxLo, hi: settings.boxHi });
  return { alpha, statistics };
}

/** Per prompt: [a, u] of every (layer, head), layer-major, interleaved. */
async function alignLeakPerPrompt(model: CausalLM, input: RainAlphaInput, onPrompt: (done: number) => void): Promise<Float64Array[]> {
  const { layers, heads } = input.projections;
  const out: Float64Array[] = [];
  for (const [index, prompt] of input.prompts.entries()) {
    const values = new Float64Array(2 * layers.length * heads);
    // A prompt without instructions measures 0 everywhere; the reference does not run it either.
    if (prompt.spans.instructions.length > 0 && prompt.ids.length > 0) {
      await captureRainFeatures(model.context, prompt.ids, layers, (capture) => {
        const at = layers.indexOf(capture.layer) * heads;
        for (let head = 0; head < heads; head++) {
          const { alignment, leak } = rainAlignLeak(capture.attention(head), capture.length, prompt.spans);
          values[2 * (at + head)] = alignment;
          values[2 * (at + head) + 1] = leak;
        }
      });
    }
    out.push(values);
    onPrompt(index + 1);
  }
  return out;
}
