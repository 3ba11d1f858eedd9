/**
 * getBlockPasses: one block of a looped model under one method, pass by pass (issue 16's
 * "side-by-side can compare a block's contribution in each pass").
 *
 * A looped model uses every decoder weight once per pass, so one edit Δ = θ_edited − θ_I acts at
 * two depths. Its first-order effect on a loss is g·Δ with g = Σ_pass g_pass, so g_pass·Δ is the
 * part of the block's predicted ΔL that comes through pass p — for the method the pane shows, not
 * the raw δ the gate scores (getPassMetrics has that). The per-pass gradient parts are the ones
 * the gradients stage stored beside each sum (pipeline/pass-gradients.ts); only the block's
 * tensors are read from the layer files. Null for a model without a loop.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { partOf } from '../crane/expert-parts.ts';
import { taskVector } from '../crane/tensor-pair.ts';
import { passCount } from '../model/loop-config.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { editFor } from '../pipeline/edit-method.ts';
import { GradientStore } from '../pipeline/gradient-store.ts';
import { passPartName } from '../pipeline/pass-gradients.ts';
import { readCurrentPassMetrics } from '../pipeline/pass-metrics-stage.ts';
import { pipelinePaths } from '../pipeline/pipeline-folder.ts';
import { STAGE_MARKER } from '../pipeline/stage-store.ts';
import { ProtocolError } from '../protocol/errors.ts';
import type { HandlerContext } from '../protocol/handlers.ts';
import type { Params, Result } from '../protocol/methods.ts';
import type { PassContribution } from '../protocol/pass-schemas.ts';
import type { EngineSession, LoadedAnalysis } from './engine-session.ts';
import { guarded } from './handler-errors.ts';
import { blockTensors } from './block-tensors.ts';
import { methodContext } from './method-context.ts';
import { requirePair, withProjectPair } from './project-pair.ts';
import { l2Norm } from './tensor-stats.ts';

export function blockPassesHandler(session: EngineSession) {
  return (params: Params<'getBlockPasses'>, ctx: HandlerContext): Promise<Result<'getBlockPasses'>> =>
    guarded(async () => {
      const { project } = session.requireProject();
      requirePair(project);
      const analysis = await session.analysis();
      const method = await methodContext(session, params.method);
      return withProjectPair(project, async ({ instruct, thinking }) => {
        const passes = passCount(loadCausalLM(instruct).spec);
        if (passes === 1) return null;
        const gradients = await passGradientDirs(analysis);
        const tensors = [];
        for (const [name, expertParts] of blockTensors(instruct, thinking, params.block)) {
          if (ctx.signal.aborted) throw new ProtocolError('cancelled', 'getBlockPasses cancelled');
          const { shape } = instruct.tensor(name);
          if (thinking.tensor(name).shape.join() !== shape.join()) continue;
          const thetaI = await instruct.readFloat32(name);
          const edited = editFor(method.edit, method.context)(name, shape, thetaI, await thinking.readFloat32(name)).values;
          const update = taskVector(thetaI, edited);
          const parts = await Promise.all([gradients.reasoning, gradients.agent].map((dir) => passParts(dir, params.block.layer, name, passes)));
          const [reasoning, agent] = parts as [Float32Array[], Float32Array[]];
          // A fused expert tensor's gradient is stored whole, like the tensor: each covered expert part is its slice of both.
          for (const part of expertParts) {
            const contributions = reasoning.map((gR, pass) => contribution(pass, partOf(update, part), partOf(gR, part), partOf(agent[pass] as Float32Array, part)));
            tensors.push({ name: part.tensor.name, passes: contributions });
          }
        }
        return { block: params.block, passes, tensors };
      });
    }, ctx.signal);
}

/**
 * The two gradient stores of the loaded analysis, when they are the ones its per-pass metrics
 * came from: a current per-pass file (else the analysis predates the per-pass parts) and a
 * finished gradients stage (an analysis rerunning it has removed the marker).
 */
async function passGradientDirs(analysis: LoadedAnalysis): Promise<{ reasoning: string; agent: string }> {
  const paths = pipelinePaths(analysis.analysisDir);
  const current = await readCurrentPassMetrics(analysis.analysisDir, analysis.record);
  const finished = await access(join(paths.gradients, STAGE_MARKER)).then(() => true, () => false);
  if (current === null || !finished) {
    throw new ProtocolError('not-found', `${paths.gradients} holds no finished per-pass gradients of this analysis: run the analysis again`);
  }
  return { reasoning: join(paths.gradients, 'reasoning'), agent: join(paths.gradients, 'agent') };
}

async function passParts(dir: string, layer: number, name: string, passes: number): Promise<Float32Array[]> {
  const names = Array.from({ length: passes }, (_, pass) => passPartName(pass, name));
  const read = await GradientStore.readCommitted(dir, layer, names);
  return names.map((part) => {
    const grad = read.get(part);
    if (grad === undefined) throw new ProtocolError('not-found', `${dir}: layer ${layer} has no gradient ${part}: run the analysis again`);
    return grad;
  });
}

function contribution(pass: number, update: Float32Array, gradR: Float32Array, gradA: Float32Array): PassContribution {
  return { pass, lossReasoning: dot(gradR, update), lossAgent: dot(gradA, update), gradNormReasoning: l2Norm(gradR), gradNormAgent: l2Norm(gradA) };
}

/** Σ a_i·b_i in float64 (a tensor's gradient is millions of entries). */
function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
