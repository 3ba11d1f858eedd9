/**
 * Stage `gradients`: g_R and g_A at θ = θ_I, per decoder-layer parameter, on the train split.
 *
 *   gradientsKey(ctx, targetsKey) → StageKey
 *   runGradients(ctx, clock)  → stages/gradients/{reasoning,agent}/ (gradient-store.ts)
 *   openGradients(ctx) → { reasoning, agent } stores, for the gates stage
 *
 * g_K = (1/N) Σ_i ∇L_K(x_i), L_K(x_i) the mean CE over sequence i's target tokens: the runtime
 * divides by sequenceCount = N, so the batches' gradients simply add up in the store. Resumes at
 * the first uncommitted batch; a cancel inside a batch (checked between layers) loses that batch.
 */
import { join } from 'node:path';
import { CalibrationError } from '../calibration/calibration-error.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { lossBatch, readSequences } from './calibration-sequences.ts';
import { GradientStore } from './gradient-store.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { throwIfCancelled, type StageClock } from './progress.ts';
import type { StageKey } from './stage-store.ts';

const SETS = ['reasoning', 'agent'] as const;

export function gradientsKey(ctx: PipelineContext, targets: StageKey): StageKey {
  return { targets, instruct: ctx.inputs.instruct };
}

export async function runGradients(ctx: PipelineContext, clock: StageClock): Promise<void> {
  const model = loadCausalLM(ctx.instruct);
  const sequences = await readSequences(ctx.paths.sequences);
  const size = ctx.settings.batchSequences;
  const batches = SETS.map((set) => {
    const train = lossBatch(sequences, set, 'train');
    if (train.length === 0) throw new CalibrationError('dataset', ctx.settings.analysis.calibration[set], `has no training sequences for g_${set === 'reasoning' ? 'R' : 'A'} (all held out?)`);
    return train;
  });
  const total = batches.reduce((sum, b) => sum + Math.ceil(b.length / size), 0);
  let finished = 0;
  for (const [s, set] of SETS.entries()) {
    const train = batches[s] as NonNullable<(typeof batches)[number]>;
    const store = await GradientStore.open(join(ctx.paths.gradients, set));
    const count = Math.ceil(train.length / size);
    finished += store.batchesDone;
    for (let b = store.batchesDone; b < count; b++) {
      throwIfCancelled(ctx.callbacks.signal, 'gradients');
      await model.lossAndLayerGrads(train.slice(b * size, (b + 1) * size), async (layer, grads) => {
        throwIfCancelled(ctx.callbacks.signal, 'gradients');
        await store.addLayer(layer, grads);
      }, { sequenceCount: train.length });
      await store.commitBatch();
      clock.report(++finished / total, `g_${set === 'reasoning' ? 'R' : 'A'} batch ${b + 1}/${count}`);
    }
  }
}

export async function openGradients(ctx: PipelineContext): Promise<{ reasoning: GradientStore; agent: GradientStore }> {
  return {
    reasoning: await GradientStore.open(join(ctx.paths.gradients, 'reasoning')),
    agent: await GradientStore.open(join(ctx.paths.gradients, 'agent')),
  };
}
