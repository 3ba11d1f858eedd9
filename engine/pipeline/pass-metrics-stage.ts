/**
 * The per-pass analysis of a looped model, kept beside the gates stage's result:
 * DIR/stages/passes/pass-metrics.json (analysis/pass-metrics.ts) with its own done marker.
 *
 *   passMetricsKey(ctx) → StageKey | undefined    undefined for a model without a loop (nothing kept)
 *   passMetricsCached(ctx) → boolean              true when there is nothing to keep, or it is kept
 *   writePassMetricsStage(ctx, blocks)            the gates stage's per-pass sums + the projectors
 *                                                 stage's per-pass spectra, then the marker
 *
 * Its key is the result's key (every input hash and result-shaping setting) and a format
 * version, so a looped analysis whose result is cached but whose per-pass file is missing or
 * older reruns the gates stage, and a dense analysis' keys and files are what they were.
 */
import { join } from 'node:path';
import { PASS_METRICS_FILE, PASS_SPECTRA_FILE, readPassSpectra, writePassMetrics } from '../analysis/pass-metrics.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { passCount } from '../model/loop-config.ts';
import type { PassBlock } from '../protocol/pass-schemas.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { resultKey } from './pipeline-folder.ts';
import { markStageDone, openStage, stageStatus, type StageKey } from './stage-store.ts';

const PASS_METRICS_VERSION = 1;

export function passMetricsKey(ctx: PipelineContext): StageKey | undefined {
  if (passCount(loadCausalLM(ctx.instruct).spec) === 1) return undefined;
  return { result: resultKey(ctx.inputs, ctx.settings), version: PASS_METRICS_VERSION };
}

export async function passMetricsCached(ctx: PipelineContext): Promise<boolean> {
  const key = passMetricsKey(ctx);
  return key === undefined || (await stageStatus(ctx.paths.passes, key)).state === 'cached';
}

export async function writePassMetricsStage(ctx: PipelineContext, blocks: PassBlock[] | undefined): Promise<void> {
  const key = passMetricsKey(ctx);
  if (key === undefined) return;
  if (blocks === undefined) throw new Error('internal: a looped model\'s gates stage gave no per-pass sums');
  const spectra = await readPassSpectra(join(ctx.paths.projectors, PASS_SPECTRA_FILE)) ?? [];
  const model = loadCausalLM(ctx.instruct).spec;
  await openStage(ctx.paths.passes, key);
  await writePassMetrics(join(ctx.paths.passes, PASS_METRICS_FILE), { passes: passCount(model), layers: model.numLayers, blocks, spectra });
  await markStageDone(ctx.paths.passes, key);
}
