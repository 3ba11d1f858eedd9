/**
 * The per-pass analysis of a looped model, kept beside the gates stage's result:
 * DIR/stages/passes/pass-metrics.json (analysis/pass-metrics.ts) with its own done marker.
 *
 *   passMetricsKey(ctx) → StageKey | undefined    undefined for a model without a loop (nothing kept)
 *   passMetricsCached(ctx) → boolean              true when there is nothing to keep, or it is kept
 *   writePassMetricsStage(ctx, blocks)            the gates stage's per-pass sums + the projectors
 *                                                 stage's per-pass spectra, then the marker
 *   readCurrentPassMetrics(analysisDir, record)   the file if its key is the analysis' own; null
 *                                                 when there is none (a model without a loop)
 *
 * Its key is the result's key (every input hash and result-shaping setting), the gradients'
 * batch split (stage-keys.ts) and a format version, so a looped analysis whose result is cached
 * but whose per-pass file is missing or older reruns the gates stage, and a dense analysis' keys
 * and files are what they were.
 */
import { join } from 'node:path';
import { PASS_METRICS_FILE, PASS_SPECTRA_FILE, readPassMetrics, readPassSpectra, writePassMetrics } from '../analysis/pass-metrics.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { passCount } from '../model/loop-config.ts';
import type { StoredPassBlock, StoredPassMetrics } from '../protocol/pass-schemas.ts';
import type { PipelineSettings } from './analysis-settings.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { pipelinePaths, type InputHashes, type PipelineRecord } from './pipeline-folder.ts';
import { sumsKey } from './stage-keys.ts';
import { markStageDone, openStage, stageStatus, type StageKey } from './stage-store.ts';

const PASS_METRICS_VERSION = 1;

export function passMetricsKey(ctx: PipelineContext): StageKey | undefined {
  if (passCount(loadCausalLM(ctx.instruct).spec) === 1) return undefined;
  return keyOf(ctx.inputs, ctx.settings);
}

function keyOf(inputs: InputHashes, settings: PipelineSettings): StageKey {
  return { ...sumsKey(inputs, settings), version: PASS_METRICS_VERSION };
}

/** A marker of another key means an analysis from before the per-pass metrics (or of other inputs): analyze again. */
export async function readCurrentPassMetrics(analysisDir: string, record: PipelineRecord): Promise<StoredPassMetrics | null> {
  const dir = pipelinePaths(analysisDir).passes;
  const status = await stageStatus(dir, keyOf(record.inputs, record.settings));
  if (status.state === 'missing') return null;
  if (status.state === 'stale') throw new CheckpointError('not-found', dir, `is out of date (${status.reasons.join('; ')}): run the analysis again`);
  return await readPassMetrics(join(dir, PASS_METRICS_FILE)) ?? null;
}

export async function passMetricsCached(ctx: PipelineContext): Promise<boolean> {
  const key = passMetricsKey(ctx);
  return key === undefined || (await stageStatus(ctx.paths.passes, key)).state === 'cached';
}

export async function writePassMetricsStage(ctx: PipelineContext, blocks: StoredPassBlock[] | undefined): Promise<void> {
  const key = passMetricsKey(ctx);
  if (key === undefined) return;
  if (blocks === undefined) throw new Error('internal: a looped model\'s gates stage gave no per-pass sums');
  const spectra = await readPassSpectra(join(ctx.paths.projectors, PASS_SPECTRA_FILE)) ?? [];
  const model = loadCausalLM(ctx.instruct).spec;
  await openStage(ctx.paths.passes, key);
  await writePassMetrics(join(ctx.paths.passes, PASS_METRICS_FILE), { passes: passCount(model), layers: model.numLayers, blocks, spectra });
  await markStageDone(ctx.paths.passes, key);
}
