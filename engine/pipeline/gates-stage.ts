/**
 * Stage `gates`: per decoder layer, both gradients and both sides' weights meet once.
 *
 *   runGates(ctx, clock) → AnalysisArtifacts (gate table, projectors, preview coefficients)
 *
 * For each layer: read g_R and g_A from the gradient stores, then tensor by tensor θ_I and θ_T,
 * feed GateAccumulator with raw δ (the CTG uses no thresholding) and, for crane-rule tensors,
 * PreviewCoefficientBuilder (T(δ) at q, projector lookups), and drop everything before the next
 * tensor. Peak memory: one layer's two gradient maps plus one tensor pair. A tensor missing on
 * the Thinking side or of another shape has no δ: it is not scored (editPair copies or keeps
 * θ_I for it). The CTG reference block is `expert` when the model has routed experts, else `ffn`.
 */
import type { AnalysisArtifacts } from '../analysis/analysis-store.ts';
import { PreviewCoefficientBuilder } from '../analysis/preview-coefficients.ts';
import { GateAccumulator } from '../crane/gate-accumulator.ts';
import { computeGateTable } from '../crane/gate-scales.ts';
import { classifyTensor, referenceGroup } from '../crane/tensor-classification.ts';
import { taskVector } from '../crane/tensor-pair.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { openGradients } from './gradients-stage.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { readStageProjectors } from './projectors-stage.ts';
import { throwIfCancelled, type StageClock } from './progress.ts';

export async function runGates(ctx: PipelineContext, clock: StageClock): Promise<AnalysisArtifacts> {
  const { instruct, thinking } = ctx;
  const layers = loadCausalLM(instruct).spec.numLayers;
  const projectors = await readStageProjectors(ctx);
  const stores = await openGradients(ctx);
  const gate = new GateAccumulator();
  const builder = new PreviewCoefficientBuilder(ctx.settings.keepQuantile, (key) => projectors.get(key));
  for (let layer = 0; layer < layers; layer++) {
    throwIfCancelled(ctx.callbacks.signal, 'gates');
    const gradR = await stores.reasoning.readLayer(layer);
    const gradA = await stores.agent.readLayer(layer);
    for (const [name, gR] of gradR) {
      const gA = gradA.get(name);
      const side = thinking.tensors.get(name);
      const { shape } = instruct.tensor(name);
      if (gA === undefined || side === undefined || side.shape.join('x') !== shape.join('x')) continue;
      const thetaI = await instruct.readFloat32(name);
      const delta = taskVector(thetaI, await thinking.readFloat32(name));
      const tensor = classifyTensor(name);
      gate.add(tensor, { thetaI, delta, gradR: gR, gradA: gA });
      if (tensor.rule === 'crane') builder.add(tensor, shape, { delta, gradR: gR, gradA: gA });
    }
    clock.report((layer + 1) / layers, `layer ${layer + 1}/${layers}`);
  }
  const hasExperts = [...instruct.tensors.keys()].some((name) => classifyTensor(name).group === 'expert');
  return { gate: computeGateTable(gate.blocks(), referenceGroup(hasExperts)), projectors, coefficients: builder.build() };
}
