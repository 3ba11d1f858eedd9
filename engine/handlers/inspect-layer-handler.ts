/**
 * inspectLayer: one block of the open pair as Instruct, Thinking and the edit see it — norms,
 * value and δ histograms, the fraction of entries the method keeps, and |Δ| maps before and
 * after the GSP projection (the same Δ with the projection off, then on, via craneDelta; for the
 * baselines the two maps are the same update).
 *
 * A block is a heatmap column at one layer (block-tensors.ts). Tensors are read one at a time
 * and only the summaries are kept. A fused expert tensor is read and edited whole, as the merge
 * edits it, and each expert part the block covers is shown under its per-expert name
 * (`mlp.experts.3.gate_proj.weight`) with its own shape.
 */
import { craneDelta } from '../crane/crane-edit.ts';
import { partOf, type ExpertPart } from '../crane/expert-parts.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { magnitudeThreshold } from '../crane/magnitude-threshold.ts';
import type { TensorClass } from '../crane/tensor-classification.ts';
import { taskVector } from '../crane/tensor-pair.ts';
import { editFor } from '../pipeline/edit-method.ts';
import { ProtocolError } from '../protocol/errors.ts';
import type { HandlerContext } from '../protocol/handlers.ts';
import type { Params, Result } from '../protocol/methods.ts';
import { blockTensors } from './block-tensors.ts';
import type { EngineSession } from './engine-session.ts';
import { guarded } from './handler-errors.ts';
import { methodContext, type MethodContext } from './method-context.ts';
import { requirePair, withProjectPair } from './project-pair.ts';
import { absMap, histogram, l2Norm, range } from './tensor-stats.ts';

type TensorView = Result<'inspectLayer'>['tensors'][number];

export function inspectLayerHandler(session: EngineSession) {
  return (params: Params<'inspectLayer'>, ctx: HandlerContext): Promise<Result<'inspectLayer'>> =>
    guarded(async () => {
      const { project } = session.requireProject();
      requirePair(project);
      const method = await methodContext(session, params.method);
      return withProjectPair(project, async ({ instruct, thinking }) => {
          const tensors: TensorView[] = [];
          for (const [name, parts] of blockTensors(instruct, thinking, params.block)) {
            if (ctx.signal.aborted) throw new ProtocolError('cancelled', 'inspectLayer cancelled');
            const { shape } = instruct.tensor(name);
            if (thinking.tensor(name).shape.join() !== shape.join()) continue;
            const thetaI = await instruct.readFloat32(name);
            const thetaT = await thinking.readFloat32(name);
            const edited = editFor(method.edit, method.context)(name, shape, thetaI, thetaT).values;
            for (const part of parts) tensors.push(tensorView(part, partOf(thetaI, part), partOf(thetaT, part), partOf(edited, part), method, params));
          }
          return { block: params.block, tensors };
      });
    }, ctx.signal);
}

function tensorView(
  { tensor, shape }: ExpertPart,
  thetaI: Float32Array,
  thetaT: Float32Array,
  edited: Float32Array,
  method: MethodContext,
  params: Params<'inspectLayer'>,
): TensorView {
  const raw = taskVector(thetaI, thetaT);
  const applied = taskVector(thetaI, edited);
  const crane = method.edit.method === 'crane' ? method.edit.settings : null;
  const before = crane !== null && tensor.rule === 'crane' ? unprojected(tensor, shape, thetaI, thetaT, crane, method) : applied;
  const values = range(thetaI, thetaT, edited);
  const spread = Math.max(...[range(raw).lo, range(raw).hi].map(Math.abs));
  return {
    name: tensor.name,
    shape: [...shape],
    norms: { instruct: l2Norm(thetaI), thinking: l2Norm(thetaT), edited: l2Norm(edited), delta: l2Norm(raw) },
    values: {
      instruct: histogram(thetaI, params.bins, values.lo, values.hi),
      thinking: histogram(thetaT, params.bins, values.lo, values.hi),
      edited: histogram(edited, params.bins, values.lo, values.hi),
    },
    delta: histogram(raw, params.bins, -spread || -1, spread || 1),
    keptFraction: keptFraction(raw, applied, crane, tensor, method),
    deltaMap: { before: absMap(before, shape, params.mapSize), after: absMap(applied, shape, params.mapSize) },
  };
}

/** The same CRANE update with the projection switched off. */
function unprojected(tensor: TensorClass, shape: readonly number[], thetaI: Float32Array, thetaT: Float32Array, crane: ResolvedCraneSettings, method: MethodContext): Float32Array {
  const context = method.context ?? { gate: null, projector: () => undefined };
  return craneDelta(tensor, shape, thetaI, thetaT, { ...crane, stages: { ...crane.stages, gsp: false } }, context).delta;
}

/** Stage 1's kept share for CRANE; the surviving share for TIES/DARE; everything for the rest. */
function keptFraction(raw: Float32Array, applied: Float32Array, crane: ResolvedCraneSettings | null, tensor: TensorClass, method: MethodContext): number {
  if (raw.length === 0) return 1;
  if (crane !== null) {
    if (tensor.rule !== 'crane' || !crane.stages.threshold) return 1;
    return magnitudeThreshold(raw, crane.keepQuantile).kept / raw.length;
  }
  if (method.edit.method !== 'ties' && method.edit.method !== 'dare') return 1;
  let nonzero = 0;
  for (const v of applied) if (v !== 0) nonzero++;
  return nonzero / raw.length;
}
