/**
 * One decoder layer of the gates stage: every scored tensor's gate sums and preview moments,
 * computed apart from the accumulators they end in, so that layers can be scored on any thread
 * and merged in layer order (the gate table and the coefficients then never depend on which
 * thread scored what).
 *
 *   const scorer = new LayerScorer(sources, keepQuantile, projectorOf);
 *   const scored = await scorer.score(layer)          → ScoredLayer (plain data: postMessage-able)
 *   mergeScoredLayer(scored, instruct, { gate, passGates, builder })
 *
 * Per tensor: θ_I, θ_T, g_R and g_A are read into arrays the scorer keeps (sized to the largest
 * tensor so far: no fresh pages, no layer of gradients held at once) and δ is formed in θ_T's;
 * the raw δ feeds the gate sums (the
 * CTG uses no thresholding) and, for crane-rule tensors, the preview moments (T(δ) at q,
 * projector lookups). A tensor missing on the Thinking side or of another shape has no δ: it
 * is not scored (editPair copies or keeps θ_I for it). A fused expert tensor is scored as the
 * per-expert tensors it holds (S per expert). A looped model's stored layers also hold each
 * pass's gradient part: the gate uses the sum, as the method defines; one more set of sums per
 * pass takes the parts with the same δ.
 */
import { previewMoments, type PreviewCoefficientBuilder, type PreviewMoments } from '../analysis/preview-coefficients.ts';
import { expertParts, partOf } from '../crane/expert-parts.ts';
import { GateAccumulator, gateSums, type GateSums } from '../crane/gate-accumulator.ts';
import type { GspProjector } from '../crane/gsp-projector.ts';
import { classifyTensor } from '../crane/tensor-classification.ts';
import { taskVector } from '../crane/tensor-pair.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import type { GradientStore } from './gradient-store.ts';
import { passPartName, splitPassParts } from './pass-gradients.ts';

export interface ScoredPart {
  readonly gate: GateSums;
  /** Per pass of a looped model; empty otherwise. */
  readonly passes: readonly GateSums[];
  /** Null for a tensor whose rule is not `crane` (no preview coefficients). */
  readonly preview: PreviewMoments | null;
}

export interface ScoredLayer {
  readonly layer: number;
  readonly passCount: number;
  /** Scored tensors in the gradient file's order; parts in expertParts order. */
  readonly tensors: readonly { readonly name: string; readonly parts: readonly ScoredPart[] }[];
}

export interface LayerSources {
  readonly instruct: Checkpoint;
  readonly thinking: Checkpoint;
  readonly reasoning: GradientStore;
  readonly agent: GradientStore;
}

export class LayerScorer {
  /** Kept across tensors and layers; replaced only by larger ones. */
  private arrays = tensorArrays(0);

  constructor(
    private readonly sources: LayerSources,
    private readonly keepQuantile: number,
    private readonly projectorOf: (key: string) => GspProjector | undefined,
  ) {}

  async score(layer: number): Promise<ScoredLayer> {
    const { instruct, thinking } = this.sources;
    const [fileR, fileA] = await Promise.all([this.sources.reasoning.openLayer(layer), this.sources.agent.openLayer(layer)]);
    try {
      const namesR = splitPassParts(new Map([...fileR.tensors.keys()].map((stored) => [stored, stored])));
      const tensors: ScoredLayer['tensors'][number][] = [];
      for (const name of namesR.combined.keys()) {
        const side = thinking.tensors.get(name);
        const { shape } = instruct.tensor(name);
        if (!fileA.tensors.has(name) || side === undefined || side.shape.join('x') !== shape.join('x')) continue;
        const length = shape.reduce((a, b) => a * b, 1);
        if (this.arrays.thetaI.length < length) this.arrays = tensorArrays(length);
        const arrays = this.arrays;
        const thetaI = await instruct.readFloat32(name, arrays.thetaI);
        const delta = taskVector(thetaI, await thinking.readFloat32(name, arrays.thetaT), arrays.thetaT.subarray(0, length));
        const [gR, gA] = await Promise.all([fileR.readFloat32(name, arrays.gradR), fileA.readFloat32(name, arrays.gradA)]);
        const parts = expertParts(classifyTensor(name), shape);
        const passes: GateSums[][] = parts.map(() => []);
        // A looped model's per-pass parts, one pass at a time through the same two arrays.
        for (let pass = 0; pass < namesR.passes.length; pass++) {
          const stored = passPartName(pass, name);
          const [pR, pA] = await Promise.all([fileR.readFloat32(stored, arrays.passR), fileA.readFloat32(stored, arrays.passA)]);
          parts.forEach((part, k) => passes[k]?.push(gateSums({ thetaI: partOf(thetaI, part), delta: partOf(delta, part), gradR: partOf(pR, part), gradA: partOf(pA, part) })));
        }
        tensors.push({
          name,
          parts: parts.map((part, k): ScoredPart => {
            const inputs = { thetaI: partOf(thetaI, part), delta: partOf(delta, part), gradR: partOf(gR, part), gradA: partOf(gA, part) };
            const preview = part.tensor.rule === 'crane' ? previewMoments(part.tensor, part.shape, inputs, this.keepQuantile, this.projectorOf) : null;
            return { gate: gateSums(inputs), passes: passes[k] as GateSums[], preview };
          }),
        });
      }
      return { layer, passCount: namesR.passes.length, tensors };
    } finally {
      await Promise.all([fileR.close(), fileA.close()]);
    }
  }
}

/** θ_I, θ_T (then δ), g_R, g_A, and one pass part of each for a looped model. */
interface TensorArrays {
  readonly thetaI: Float32Array;
  readonly thetaT: Float32Array;
  readonly gradR: Float32Array;
  readonly gradA: Float32Array;
  readonly passR: Float32Array;
  readonly passA: Float32Array;
}

function tensorArrays(length: number): TensorArrays {
  const array = () => new Float32Array(length);
  return { thetaI: array(), thetaT: array(), gradR: array(), gradA: array(), passR: array(), passA: array() };
}

export interface GateSinks {
  readonly gate: GateAccumulator;
  /** One accumulator per pass of a looped model, grown as layers report passes. */
  readonly passGates: GateAccumulator[];
  readonly builder: PreviewCoefficientBuilder;
}

/** Adds a scored layer into the accumulators, in its tensor and part order. */
export function mergeScoredLayer(scored: ScoredLayer, instruct: Checkpoint, sinks: GateSinks): void {
  const { gate, passGates, builder } = sinks;
  while (passGates.length < scored.passCount) passGates.push(new GateAccumulator());
  for (const { name, parts } of scored.tensors) {
    const classes = expertParts(classifyTensor(name), instruct.tensor(name).shape);
    parts.forEach((part, index) => {
      const { tensor } = classes[index] as (typeof classes)[number];
      gate.addSums(tensor, part.gate);
      part.passes.forEach((sums, pass) => (passGates[pass] as GateAccumulator).addSums(tensor, sums));
      if (part.preview !== null) builder.addMoments(tensor, part.preview);
    });
  }
}
