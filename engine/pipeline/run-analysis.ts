/**
 * The whole analysis of an Instruct/Thinking pair, as resumable cached stages.
 *
 *   runAnalysis({ instruct, thinking, outDir, settings, onProgress?, onStageDone?, signal? }) → AnalysisRun
 *
 * Order: preflight (pair report, runtime support, finite weights — before anything is written),
 * input hashes, then the stages
 *   targets → projectors → gradients → gates (+ writeAnalysis into DIR/result) → curvature
 * each skipped when its marker matches its key (reported `cached`), redone when the key changed
 * (reported with the reasons), resumed when a run with the same key was cancelled inside it.
 * A stage's key holds the keys of the stages it reads, so a changed input or setting re-runs
 * exactly the stages downstream of it. The final artifacts' manifest (analysis-store) is keyed
 * by the flat input hashes and the settings that shape results (no paths, no batch size); the
 * stages that read the gradient sums add the batch split to it (stage-keys.ts).
 *
 * Cancellation: the signal is checked between sequences, batches and layers; it ends the run
 * with CancelledError and leaves every folder either marked complete or resumable.
 */
import { mkdir } from 'node:fs/promises';
import { loadAnalysis, writeAnalysis, type AnalysisArtifacts } from '../analysis/analysis-store.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import type { PipelineSettings } from './analysis-settings.ts';
import { curvatureKey, runCurvature } from './curvature-stage.ts';
import { runGates } from './gates-stage.ts';
import { gradientsKey, runGradients } from './gradients-stage.ts';
import { hashInputs } from './input-hashing.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { passMetricsCached, writePassMetricsStage } from './pass-metrics-stage.ts';
import { pipelinePaths, resultKey, writePipelineRecord, type InputHashes } from './pipeline-folder.ts';
import { assertAnalysablePair } from './preflight.ts';
import { CancelledError, StageClock, type AnalysisStageName, type PipelineCallbacks, type StageDoneEvent } from './progress.ts';
import { projectorsKey, runProjectors } from './projectors-stage.ts';
import { markStageDone, openStage, stageStatus, type StageKey } from './stage-store.ts';
import { sumsKey } from './stage-keys.ts';
import { runTargets, targetsKey } from './targets-stage.ts';

export interface AnalyzeOptions extends PipelineCallbacks {
  readonly instruct: string;
  readonly thinking: string;
  readonly outDir: string;
  readonly settings: PipelineSettings;
}

export interface AnalysisRun {
  readonly dir: string;
  readonly resultDir: string;
  readonly stages: readonly StageDoneEvent<AnalysisStageName>[];
  readonly artifacts: AnalysisArtifacts;
  readonly inputs: InputHashes;
  readonly seconds: number;
}

export async function runAnalysis(options: AnalyzeOptions): Promise<AnalysisRun> {
  const started = performance.now();
  const instruct = await Checkpoint.open(options.instruct);
  try {
    const thinking = await Checkpoint.open(options.thinking);
    try {
      const preflight = new StageClock('targets', options.onProgress);
      await assertAnalysablePair(instruct, thinking, { signal: options.signal, onFraction: (f) => preflight.report(0, `checking weights ${(f * 100).toFixed(0)}%`) });
      const inputs = await hashInputs(instruct, thinking, options.settings.analysis.calibration, options.signal);
      const paths = pipelinePaths(options.outDir);
      await mkdir(paths.dir, { recursive: true });
      await writePipelineRecord(paths.dir, { instruct: instruct.dir, thinking: thinking.dir, settings: options.settings, inputs });
      const ctx: PipelineContext = { instruct, thinking, inputs, settings: options.settings, paths, callbacks: options };
      const stages: StageDoneEvent<AnalysisStageName>[] = [];
      const targets = targetsKey(ctx);
      stages.push(await runStage(ctx, 'targets', paths.targets, targets, (clock) => runTargets(ctx, clock)));
      const projectors = projectorsKey(ctx, targets);
      stages.push(await runStage(ctx, 'projectors', paths.projectors, projectors, (clock) => runProjectors(ctx, clock)));
      const gradients = gradientsKey(ctx, targets);
      stages.push(await runStage(ctx, 'gradients', paths.gradients, gradients, (clock) => runGradients(ctx, clock)));
      const gates = await runGatesStage(ctx);
      stages.push(gates.event);
      stages.push(await runStage(ctx, 'curvature', paths.curvature, curvatureKey(ctx), (clock) => runCurvature(ctx, gates.artifacts, clock)));
      return { dir: paths.dir, resultDir: paths.result, stages, artifacts: gates.artifacts, inputs, seconds: (performance.now() - started) / 1000 };
    } finally {
      await thinking.close();
    }
  } finally {
    await instruct.close();
  }
}

async function runStage(ctx: PipelineContext, stage: AnalysisStageName, dir: string, key: StageKey, work: (clock: StageClock) => Promise<void>): Promise<StageDoneEvent<AnalysisStageName>> {
  const status = await stageStatus(dir, key);
  if (status.state === 'cached') return done(ctx, { stage, cached: true, seconds: 0 });
  const clock = new StageClock(stage, ctx.callbacks.onProgress);
  const opened = await openStage(dir, key);
  if (opened === 'resumed') ctx.callbacks.onLog?.(`${stage}: resuming an interrupted run`);
  await cancellable(ctx, stage, () => work(clock));
  await markStageDone(dir, key);
  return done(ctx, { stage, cached: false, seconds: clock.seconds, ...(status.state === 'stale' ? { staleReasons: status.reasons } : {}) });
}

/**
 * The gates stage's files are the analysis-store manifest's folder, keyed by every input hash and
 * every result-shaping setting; its marker in stages/gates adds the gradients' batch split
 * (stage-keys.ts), which the manifest leaves out but the sums' rounding follows. A looped model's
 * per-pass metrics have their own marker (pass-metrics-stage.ts).
 */
async function runGatesStage(ctx: PipelineContext): Promise<{ event: StageDoneEvent<AnalysisStageName>; artifacts: AnalysisArtifacts }> {
  const key = resultKey(ctx.inputs, ctx.settings);
  const marker = sumsKey(ctx.inputs, ctx.settings);
  const loaded = await loadAnalysis(ctx.paths.result, key);
  const status = await stageStatus(ctx.paths.gates, marker);
  if (loaded.state === 'cached' && status.state === 'cached' && await passMetricsCached(ctx)) return { event: done(ctx, { stage: 'gates', cached: true, seconds: 0 }), artifacts: loaded.artifacts };
  const clock = new StageClock('gates', ctx.callbacks.onProgress);
  await openStage(ctx.paths.gates, marker);
  const { artifacts, passBlocks } = await cancellable(ctx, 'gates', () => runGates(ctx, clock));
  await writeAnalysis(ctx.paths.result, artifacts, key);
  await writePassMetricsStage(ctx, passBlocks);
  await markStageDone(ctx.paths.gates, marker);
  // The manifest's reasons name what changed in the result; the marker's only add the split.
  const reasons = loaded.state === 'stale' ? loaded.reasons : status.state === 'stale' ? status.reasons : [];
  const staleReasons = reasons.length > 0 ? { staleReasons: reasons } : {};
  return { event: done(ctx, { stage: 'gates', cached: false, seconds: clock.seconds, ...staleReasons }), artifacts };
}

async function cancellable<T>(ctx: PipelineContext, stage: AnalysisStageName, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // The runtime's own abort (greedyDecode's signal) surfaces as an AbortError: one error type for callers.
    if (ctx.callbacks.signal?.aborted === true && !(error instanceof CancelledError)) throw new CancelledError(stage);
    throw error;
  }
}

function done(ctx: PipelineContext, event: StageDoneEvent<AnalysisStageName>): StageDoneEvent<AnalysisStageName> {
  ctx.callbacks.onStageDone?.(event);
  return event;
}
