/**
 * inspectLayer: one block of the open pair as Instruct, Thinking and the edit see it — norms,
 * value and δ histograms, the fraction of entries the method keeps, and |Δ| maps before and
 * after the GSP projection (the same Δ with the projection off, then on, via craneDelta; for the
 * baselines the two maps are the same update).
 *
 * A block is a heatmap column at one layer: a coarse group ("attention") or one projection
 * ("q", "expert_gate"). Tensors are read one at a time and only the summaries are kept. A block
 * of a large MoE layer can hold hundreds of expert tensors: the first MAX_TENSORS are shown.
 */
import { craneDelta } from '../crane/crane-edit.ts';
import { gateBlock } from '../crane/gate-accumulator.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { magnitudeThreshold } from '../crane/magnitude-threshold.ts';
import { classifyTensor, type TensorClass } from '../crane/tensor-classification.ts';
import { taskVector } from '../crane/tensor-pair.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { editFor } from '../pipeline/edit-method.ts';
import { ProtocolError } from '../protocol/errors.ts';
import type { HandlerContext } from '../protocol/handlers.ts';
import type { Params, Result } from '../protocol/methods.ts';
import { fineColumnName } from './block-columns.ts';
import type { EngineSession } from './engine-session.ts';
import { guarded } from './handler-errors.ts';
import { methodContext, type MethodContext } from './method-context.ts';
import { requirePair, withProjectPair } from './project-pair.ts';
import { absMap, histogram, l2Norm, range } from './tensor-stats.ts';

export const MAX_TENSORS = 16;

type TensorView = Result<'inspectLayer'>['tensors'][number];
type Block = Params<'inspectLayer'>['block'];

export function inspectLayerHandler(session: EngineSession) {
  return (params: Params<'inspectLayer'>, ctx: HandlerContext): Promise<Result<'inspectLayer'>> =>
    guarded(async () => {
      const { project } = session.requireProject();
      requirePair(project);
      const method = await methodContext(session, params.method);
      return withProjectPair(project, async ({ instruct, thinking }) => {
          const tensors: TensorView[] = [];
          for (const name of blockTensorNames(instruct, thinking, params.block)) {
            if (ctx.signal.aborted) throw new ProtocolError('cancelled', 'inspectLayer cancelled');
            const shape = instruct.tensors.get(name)?.shape ?? [];
            if ((thinking.tensors.get(name)?.shape ?? []).join() !== shape.join()) continue;
            tensors.push(tensorView(name, shape, await instruct.readFloat32(name), await thinking.readFloat32(name), method, params));
          }
          return { block: params.block, tensors };
      });
    }, ctx.signal);
}

/** The block's tensors both sides hold (the first MAX_TENSORS); 'not-found' when there are none. */
export function blockTensorNames(instruct: Checkpoint, thinking: Checkpoint, block: Block): string[] {
  const names = [...instruct.tensors.keys()].filter((n) => inBlock(classifyTensor(n), block) && thinking.tensors.has(n)).slice(0, MAX_TENSORS);
  if (names.length === 0) throw new ProtocolError('not-found', `no tensors in block ${block.group} of layer ${block.layer}`);
  return names;
}

/** A column name matches a coarse group, one projection (with or without its group prefix) or one routed expert (`expert.17`). */
export function inBlock(tensor: TensorClass, block: Block): boolean {
  if (tensor.layer !== block.layer || tensor.group === 'embed' || tensor.group === 'lm_head' || tensor.group === 'final_norm') return false;
  if (tensor.group === block.group) return true;
  const fine = fineColumnName(tensor.group, gateBlock(tensor));
  return fine === block.group || `${tensor.group}_${fine}` === block.group;
}

function tensorView(name: string, shape: readonly number[], thetaI: Float32Array, thetaT: Float32Array, method: MethodContext, params: Params<'inspectLayer'>): TensorView {
  const edited = editFor(method.edit, method.context)(name, shape, thetaI, thetaT).values;
  const raw = taskVector(thetaI, thetaT);
  const applied = taskVector(thetaI, edited);
  const tensor = classifyTensor(name);
  const crane = method.edit.method === 'crane' ? method.edit.settings : null;
  const before = crane !== null && tensor.rule === 'crane' ? unprojected(tensor, shape, thetaI, thetaT, crane, method) : applied;
  const values = range(thetaI, thetaT, edited);
  const spread = Math.max(...[range(raw).lo, range(raw).hi].map(Math.abs));
  return {
    name,
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
