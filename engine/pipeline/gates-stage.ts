/**
 * Stage `gates`: per decoder layer, both gradients and both sides' weights meet once.
 *
 *   runGates(ctx, clock) → { artifacts: gate table, projectors, preview coefficients;
 *                            passBlocks: a looped model's per-pass sums (pass-gradients.ts), else undefined }
 *
 * Each layer is scored by gates-layer.ts (read g_R and g_A from the gradient stores, then tensor
 * by tensor θ_I and θ_T: the gate's Taylor sums on raw δ, the preview moments for crane-rule
 * tensors) and merged into the accumulators in layer order — on worker threads when the model
 * is large enough (gates-workers.ts; results bit-identical for any count). Peak memory per
 * scoring thread: one layer's two gradient maps plus two arrays the size of the largest tensor. The CTG reference block is
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
import { LayerScorer, mergeScoredLayer, type GateSinks, type ScoredLayer } from './gates-layer.ts';
import { gatesWorkerCount, scoreLayersOnWorkers } from './gates-workers.ts';
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
  const { keepQuantile } = ctx.settings;
  const sinks: GateSinks = { gate: new GateAccumulator(), passGates: [], builder: new PreviewCoefficientBuilder(keepQuantile, (key: string) => projectors.get(key)) };
  const onLayer = (scored: ScoredLayer): void => {
    mergeScoredLayer(scored, instruct, sinks);
    clock.report((scored.layer + 1) / layers, `layer ${scored.layer + 1}/${layers}`);
  };
  const workers = gatesWorkerCount(ctx, layers);
  if (workers > 1) {
    ctx.callbacks.onLog?.(`gates: ${layers} layers on ${workers} worker threads`);
    const setup = { instruct: instruct.dir, thinking: thinking.dir, reasoning: stores.reasoning.dir, agent: stores.agent.dir, keepQuantile, projectors: [...projectors] };
    await scoreLayersOnWorkers(setup, layers, workers, onLayer, ctx.callbacks.signal);
  } else {
    const scorer = new LayerScorer({ instruct, thinking, ...stores }, keepQuantile, (key) => projectors.get(key));
    for (let layer = 0; layer < layers; layer++) {
      throwIfCancelled(ctx.callbacks.signal, 'gates');
      onLayer(await scorer.score(layer));
    }
  }
  const hasExperts = [...instruct.tensors.keys()].some((name) => classifyTensor(name).group === 'expert');
  const artifacts = { gate: computeGateTable(sinks.gate.blocks(), referenceGroup(hasExperts)), projectors, coefficients: sinks.builder.build() };
  return sinks.passGates.length === 0 ? { artifacts } : { artifacts, passBlocks: passBlocks(sinks.passGates) };
}
