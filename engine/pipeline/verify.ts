/**
 * Verify: build the edited weights and measure both calibration losses, next to the prediction
 * the instant preview makes for the same settings.
 *
 *   verifyEdit({ analysisDir, method, evaluation?, signal?, onProgress? }) → VerifyResult
 *
 * L_K is the calibration objective itself: the mean over sequences of each sequence's mean CE
 * over its target tokens (the same objective whose gradient the gate used). Measured on the
 * evaluation set the caller names, else the analysis' own (verify-batches.ts): evaluation files,
 * a held-out share, or the calibration sets themselves — the very sequences the first-order
 * prediction is about (what the α sweep uses to check it). The result records which.
 * Both models are evaluated the same way: θ_I from the Instruct checkpoint, θ_M through
 * editedWeightSource (edited at read time, see edited-source.ts).
 *
 * The prediction is the preview's, with the analysis' curvature stage when it has one (every
 * edited tensor but routers, and the curvature), else the layer tensors' first order while the
 * think-row rules also act on the measured model. Baselines get no prediction (null).
 * The checkpoints are re-hashed first: an analysis of other files is refused, not used.
 */
import { InstantPreview } from '../analysis/preview.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { canonicalJson } from '../io/tokenizer-files.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import type { WeightSource } from '../model/weights.ts';
import type { EvaluationSet, RainSettings } from '../protocol/settings-schemas.ts';
import { readSequences } from './calibration-sequences.ts';
import { loadCurvature } from './curvature-stage.ts';
import { editFor, type EditMethod } from './edit-method.ts';
import { editedWeightSource } from './edited-source.ts';
import { hashInputs } from './input-hashing.ts';
import { loadPipelineAnalysis, pipelinePaths } from './pipeline-folder.ts';
import { StageClock, throwIfCancelled, type PipelineCallbacks } from './progress.ts';
import { verifyBatches } from './verify-batches.ts';
import { rainWeightSource } from './rain-alpha.ts';
import { runRainMerge, type RainCalibrationFiles } from './rain-merge.ts';

/** What RAIN reads beside the analysis' pair (rain-merge.ts): a Base checkpoint and its two calibration files. */
export interface RainVerifyInputs {
  readonly base: string;
  readonly calibration: RainCalibrationFiles;
}

export interface VerifyOptions extends PipelineCallbacks {
  readonly analysisDir: string;
  readonly method: EditMethod;
  /** Required when the method is RAIN. */
  readonly rain?: RainVerifyInputs;
  /** Where to measure; the analysis' own evaluation set when absent. */
  readonly evaluation?: EvaluationSet;
}

export interface LossPair {
  readonly reasoning: number;
  readonly agent: number;
}

export interface VerifyResult {
  readonly measuredOn: EvaluationSet;
  readonly base: LossPair;
  readonly edited: LossPair;
  /** edited − base. */
  readonly measured: LossPair;
  /** ΔL the preview predicts (CRANE only): with curvature when the analysis has its stage. */
  readonly predicted: LossPair | null;
  readonly sequences: LossPair;
  readonly tokens: LossPair;
  readonly notes: readonly string[];
  readonly seconds: number;
}

export async function verifyEdit(options: VerifyOptions): Promise<VerifyResult> {
  const clock = new StageClock('verify', options.onProgress);
  const { record, artifacts } = await loadPipelineAnalysis(options.analysisDir);
  if (artifacts.origin === 'reference-run') {
    throw new CheckpointError('metadata', options.analysisDir, 'was imported from a reference run: Verify needs this pair\'s calibration sequences and gradients — run Analyze here, or score the exported model with `crane score`');
  }
  const evaluation = options.evaluation ?? record.settings.analysis.evaluation;
  const instruct = await Checkpoint.open(record.instruct);
  try {
    const thinking = await Checkpoint.open(record.thinking);
    try {
      const now = await hashInputs(instruct, thinking, record.settings.analysis.calibration, options.signal);
      if (canonicalJson(now) !== canonicalJson(record.inputs)) {
        throw new CheckpointError('metadata', options.analysisDir, 'was computed from other checkpoint or calibration files than those at its recorded paths: run `crane analyze` again');
      }
      const paths = pipelinePaths(options.analysisDir);
      const ctx = { instruct, thinking, inputs: record.inputs, settings: record.settings, paths, callbacks: options };
      const batches = await verifyBatches(ctx, await readSequences(paths.sequences), evaluation);
      const context = { gate: artifacts.gate, projector: (key: string) => artifacts.projectors.get(key) };
      const { method } = options;
      const source = method.method === 'rain' ? await rainSource(method, options.rain, instruct, thinking) : editedWeightSource(instruct, thinking, editFor(method, context));
      const passes = 4;
      let pass = 0;
      const measure = async (weights: WeightSource, batch: readonly LossSequence[]) => {
        throwIfCancelled(options.signal, 'verify');
        const result = await meanLoss(weights, batch, record.settings.batchSequences);
        clock.report(++pass / passes);
        return result;
      };
      const base = { reasoning: await measure(instruct, batches.reasoning), agent: await measure(instruct, batches.agent) };
      const edited = { reasoning: await measure(source, batches.reasoning), agent: await measure(source, batches.agent) };
      return {
        measuredOn: evaluation,
        base: { reasoning: base.reasoning.loss, agent: base.agent.loss },
        edited: { reasoning: edited.reasoning.loss, agent: edited.agent.loss },
        measured: { reasoning: edited.reasoning.loss - base.reasoning.loss, agent: edited.agent.loss - base.agent.loss },
        predicted: method.method === 'crane' ? predicted(new InstantPreview(artifacts.coefficients, artifacts.gate, await loadCurvature(options.analysisDir, record)), method) : null,
        sequences: { reasoning: batches.reasoning.length, agent: batches.agent.length },
        tokens: { reasoning: base.reasoning.tokens, agent: base.agent.tokens },
        notes: [...source.notes].map(([name, note]) => `${name}: ${note}`),
        seconds: clock.seconds,
      };
    } finally {
      await thinking.close();
    }
  } finally {
    await instruct.close();
  }
}

/** RAIN's merged model (Thinking with its q/k/v/o tensors in place), its notes as the edit's. */
async function rainSource(settings: RainSettings, inputs: RainVerifyInputs | undefined, instruct: Checkpoint, thinking: Checkpoint): Promise<WeightSource & { notes: ReadonlyMap<string, string> }> {
  if (inputs === undefined) throw new CheckpointError('not-found', 'base', 'RAIN needs a Base checkpoint: pass --base');
  const base = await Checkpoint.open(inputs.base);
  try {
    const merge = await runRainMerge({ base, instruct, thinking, calibration: inputs.calibration, settings });
    return { ...rainWeightSource(thinking, merge.tensors), notes: new Map(merge.notes.map((note, i) => [`RAIN ${i + 1}`, note])) };
  } finally {
    await base.close();
  }
}

function predicted(preview: InstantPreview, method: Extract<EditMethod, { method: 'crane' }>): LossPair {
  const result = preview.evaluate(method.settings);
  return { reasoning: result.deltaLossReasoning, agent: result.deltaLossAgent };
}

/** Mean over sequences of the per-sequence mean CE, and the number of target tokens. */
async function meanLoss(weights: WeightSource, batch: readonly LossSequence[], size: number): Promise<{ loss: number; tokens: number }> {
  const model = loadCausalLM(weights);
  let sum = 0;
  let tokens = 0;
  for (let start = 0; start < batch.length; start += size) {
    for (const score of await model.sequenceLosses(batch.slice(start, start + size))) {
      sum += score.loss;
      tokens += score.targets;
    }
  }
  return { loss: sum / batch.length, tokens };
}
