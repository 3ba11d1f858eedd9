/**
 * The curvature stage's anchors: the default edit at an anchor α built and measured with
 * forward passes only, so the preview can say where its model agrees with measurement
 * (analysis/preview-range.ts).
 *
 *   anchorPass(instruct, thinking, edit, alpha, sequences, batchSize, signal) → DirectionalPass   losses, no dots
 *   measuredAnchor(alpha, pass, split, atInstruct) → { alpha, measured }
 *
 * One forward per α over both sets' sequences (reasoning first, then agent): the edit is built
 * as the runtime reads each tensor (editedWeightSource; the embedding and lm_head a block of
 * rows at a time, row-block-edit.ts, with no whole θ_I or θ_T beside the edited one), and the
 * per-sequence losses are split back by set. The result has a directional pass's shape with no dots, so the stage's pass log
 * and worker queue (curvature-passes.ts, curvature-workers.ts) keep and carry it like a pass;
 * a worker thread runs it as the calling thread would, to the same bits. θ_I's losses are the
 * base passes' own (bit-identical to a forward's: curvature-stage.test.ts), taken only by the
 * final subtraction, so an anchor needs no pass before it.
 */
import type { AnalysisArtifacts } from '../analysis/analysis-store.ts';
import type { PreviewCurvature } from '../analysis/preview-curvature.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import type { DirectionalPass } from './directional-gradients.ts';
import { editFor } from './edit-method.ts';
import { cancellableSource } from './edited-source.ts';
import { throwIfCancelled } from './progress.ts';
import { rowBlockEditedSource } from './row-block-edit.ts';

/** What every anchor's edit is made from: the default settings (α set per anchor), the gate table and the projectors. Plain data, so a worker thread gets a copy. */
export interface AnchorEdit {
  readonly defaults: ResolvedCraneSettings;
  readonly gate: AnalysisArtifacts['gate'];
  readonly projectors: AnalysisArtifacts['projectors'];
}

type SetLosses = Readonly<Record<'reasoning' | 'agent', readonly number[]>>;

export async function anchorPass(
  instruct: Checkpoint, thinking: Checkpoint, edit: AnchorEdit, alpha: number, sequences: readonly LossSequence[], batchSize: number, signal: AbortSignal | undefined,
): Promise<DirectionalPass> {
  const settings = { ...edit.defaults, alpha };
  const paired = editFor({ method: 'crane', settings }, { gate: edit.gate, projector: (key) => edit.projectors.get(key) });
  const model = loadCausalLM(cancellableSource(rowBlockEditedSource(instruct, thinking, settings, paired), signal, 'curvature'));
  const sequenceLosses: number[] = [];
  for (let start = 0; start < sequences.length; start += batchSize) {
    throwIfCancelled(signal, 'curvature');
    for (const score of await model.sequenceLosses(sequences.slice(start, start + batchSize))) sequenceLosses.push(score.loss);
  }
  return { loss: mean(sequenceLosses), sequenceLosses, dots: new Float64Array() };
}

/** ΔL per set: the anchor's mean loss minus θ_I's, each summed in sequence order as Verify does. `split`: how many of the pass's losses are reasoning's. */
export function measuredAnchor(alpha: number, pass: DirectionalPass, split: number, atInstruct: SetLosses): PreviewCurvature['anchors'][number] {
  return {
    alpha,
    measured: {
      reasoning: mean(pass.sequenceLosses.slice(0, split)) - mean(atInstruct.reasoning),
      agent: mean(pass.sequenceLosses.slice(split)) - mean(atInstruct.agent),
    },
  };
}

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}
