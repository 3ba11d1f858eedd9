/**
 * Stage `gates`: per decoder layer, both gradients and both sides' weights meet once.
 *
 *   runGates(ctx, clock) → { artifacts: gate table, projectors, preview coefficients;
 *                            passBlocks: a looped model's per-pass sums (pass-gradients.ts), else undefined }
 *
 * For each layer: read g_R and g_A from the gradient stores, then tensor by tensor θ_I and θ_T,
 * feed GateAccumulator with raw δ (the CTG uses no thresholding) and, for crane-rule tensors,
 * PreviewCoefficientBuilder (T(δ) at q, projector lookups), and drop everything before the next
 * tensor. Peak memory: one layer's two gradient maps plus one tensor pair. A tensor missing on
 * the Thinking side or of another shape has no δ: it is not scored (editPair copies or keeps
 * θ_I for it). The CTG reference block is `expert` when the model has routed experts, else `ffn`.
 * A looped model's stored layers also hold each pass's gradient part: the gate uses the sum, as
 * the method defines; one more GateAccumulator per pass takes the parts with the same δ.
 */
import type { AnalysisArtifacts } from '../analysis/analysis-store.ts';
import { PreviewCoefficientBuilder } from '../analysis/preview-coefficients.ts';
import { passBlocks } from '../analysis/pass-metrics.ts';
import { expertParts, partOf } from '../crane/expert-parts.ts';
import { GateAccumulator } from '../crane/gate-accumulator.ts';
import { computeGateTable } from '../crane/gate-scales.ts';
import { classifyTensor, referenceGroup } from '../crane/tensor-classification.ts';
import { taskVector } from '../crane/tensor-pair.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import type { StoredPassBlock } from '../protocol/pass-schemas.ts';
import { openGradients } from './gradients-stage.ts';
import { splitPassParts } from './pass-gradients.ts';
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
  const gate = new GateAccumulator();
  const passGates: GateAccumulator[] = [];
  const builder = new PreviewCoefficientBuilder(ctx.settings.keepQuantile, (key) => projectors.get(key));
  for (let layer = 0; layer < layers; layer++) {
    throwIfCancelled(ctx.callbacks.signal, 'gates');
    const partsR = splitPassParts(await stores.reasoning.readLayer(layer));
    const partsA = splitPassParts(await stores.agent.readLayer(layer));
    while (passGates.length < partsR.passes.length) passGates.push(new GateAccumulator());
    for (const [name, gR] of partsR.combined) {
      const gA = partsA.combined.get(name);
      const side = thinking.tensors.get(name);
      const { shape } = instruct.tensor(name);
      if (gA === undefined || side === undefined || side.shape.join('x') !== shape.join('x')) continue;
      const thetaI = await instruct.readFloat32(name);
      const delta = taskVector(thetaI, await thinking.readFloat32(name));
      // A fused expert tensor is scored as the per-expert tensors it holds (S per expert).
      for (const part of expertParts(classifyTensor(name), shape)) {
        const inputs = { thetaI: partOf(thetaI, part), delta: partOf(delta, part), gradR: partOf(gR, part), gradA: partOf(gA, part) };
        gate.add(part.tensor, inputs);
        passGates.forEach((passGate, pass) => passGate.add(part.tensor, { ...inputs, gradR: partOf(passPart(partsR.passes, pass, name), part), gradA: partOf(passPart(partsA.passes, pass, name), part) }));
        if (part.tensor.rule === 'crane') builder.add(part.tensor, part.shape, inputs);
      }
    }
    clock.report((layer + 1) / layers, `layer ${layer + 1}/${layers}`);
  }
  const hasExperts = [...instruct.tensors.keys()].some((name) => classifyTensor(name).group === 'expert');
  const artifacts = { gate: computeGateTable(gate.blocks(), referenceGroup(hasExperts)), projectors, coefficients: builder.build() };
  return passGates.length === 0 ? { artifacts } : { artifacts, passBlocks: passBlocks(passGates) };
}

function passPart(passes: readonly ReadonlyMap<string, Float32Array>[], pass: number, name: string): Float32Array {
  const part = passes[pass]?.get(name);
  if (part === undefined) throw new Error(`internal: the gradient store has no pass ${pass} part of ${name}`);
  return part;
}
