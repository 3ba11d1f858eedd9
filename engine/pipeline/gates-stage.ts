/**
 * Stage `gates`: per decoder layer, both gradients and both sides' weights meet once.
 *
 *   runGates(ctx, clock) → { artifacts: gate table, projectors, preview coefficients;
 *                            passBlocks: a looped model's per-pass sums (pass-gradients.ts), else undefined }
 *
 * Each layer is scored by gates-layer.ts (read g_R and g_A from the gradient stores, then tensor
 * by tensor θ_I and θ_T: the gate's Taylor sums on raw δ, the preview moments for crane-rule
 * tensors) and merged into the accumulators in layer order. Peak memory: one layer's two
 * gradient maps plus two arrays the size of the largest tensor. The CTG reference block is
 * `expert` when the model has routed experts, else `ffn`.
 */
import type { AnalysisArtifacts } from '../analysis/analysis-store.ts';
import { PreviewCoefficientBuilder } from '../analysis/preview-coefficients.ts';
import { passBlocks } from '../analysis/pass-metrics.ts';
import { GateAccumulator } from '../crane/gate-accumulator.ts';
import { computeGateTable } from '../crane/gate-scales.ts';
import { classifyTensor, referenceGroup } from '../crane/tensor-classification.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import type { StoredPassBlock } from '../protocol/pass-schemas.ts';
import { LayerScorer, mergeScoredLayer, type GateSinks } from './gates-layer.ts';
import { openGradients } from './gradients-stage.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { readStageProjectors } from './projectors-stage.ts';
import { throwIfCancelled, type StageClock } from './progress.ts';

export interface GatesResult {
  readonly artifacts: AnalysisArtifacts;
  readonly passBlocks?: StoredPassBlock[];
}

export async function runGates(ctx: PipelineContext, clock: StageClock): Promise<GatesResult> {
  const { instruct, thinking } = ctx;
  const layers = loadCausalLM(instruct).spec.numLayers;
  const projectors = await readStageProjectors(ctx);
  const stores = await openGradients(ctx);
  const sinks: GateSinks = { gate: new GateAccumulator(), passGates: [], builder: new PreviewCoefficientBuilder(ctx.settings.keepQuantile, (key: string) => projectors.get(key)) };
  const scorer = new LayerScorer({ instruct, thinking, ...stores }, ctx.settings.keepQuantile, (key) => projectors.get(key));
  for (let layer = 0; layer < layers; layer++) {
    throwIfCancelled(ctx.callbacks.signal, 'gates');
    mergeScoredLayer(await scorer.score(layer), instruct, sinks);
    clock.report((layer + 1) / layers, `layer ${layer + 1}/${layers}`);
  }
  const hasExperts = [...instruct.tensors.keys()].some((name) => classifyTensor(name).group === 'expert');
  const artifacts = { gate: computeGateTable(sinks.gate.blocks(), referenceGroup(hasExperts)), projectors, coefficients: sinks.builder.build() };
  return sinks.passGates.length === 0 ? { artifacts } : { artifacts, passBlocks: passBlocks(sinks.passGates) };
}
