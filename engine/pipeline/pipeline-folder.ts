/**
 * The layout of an analysis folder (a project's `analysis/`, or `crane analyze --out DIR`).
 *
 *   DIR/pipeline.json            what was analysed: checkpoint paths, settings, input hashes
 *   DIR/decode-cache.jsonl       decoded targets (decode-cache.ts), valid across invalidations
 *   DIR/stages/{targets,projectors,gradients,curvature}/   resumable stage caches with done.json markers
 *   DIR/stages/gates/            the gates stage's marker only (its files are DIR/result)
 *   DIR/stages/passes/           a looped model's per-pass metrics (pass-metrics-stage.ts)
 *   DIR/result/                  the final artifacts, written by engine/analysis/analysis-store
 *
 *   loadPipelineAnalysis(dir) → { record, artifacts }   the finished analysis, or a clear error
 *
 * The result lives in its own sub-folder because writeAnalysis replaces its target folder
 * atomically: the stage caches must survive that. resolveArtifactsDir lets every consumer
 * (preview, merge --analysis, verify) take either DIR or a bare analysis-store folder.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ANALYSIS_FILES, loadAnalysis, type AnalysisArtifacts, type AnalysisKey } from '../analysis/analysis-store.ts';
import { DEFAULT_LONG_SEQUENCE_POLICY, LONG_SEQUENCE_POLICIES } from '../calibration/context-length.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readJsonFile } from '../io/json-file.ts';
import { heldOutShare } from '../protocol/evaluation-set.ts';
import { analysisSettingsSchema } from '../protocol/settings-schemas.ts';
import type { PipelineSettings } from './analysis-settings.ts';
import { flatInputs } from './input-hashing.ts';
import { writeFileAtomic } from '../io/atomic-file.ts';

export const PIPELINE_FILE = 'pipeline.json';

export function pipelinePaths(dir: string) {
  const stages = join(dir, 'stages');
  return {
    dir,
    pipeline: join(dir, PIPELINE_FILE),
    decodeCache: join(dir, 'decode-cache.jsonl'),
    targets: join(stages, 'targets'),
    sequences: join(stages, 'targets', 'sequences.jsonl'),
    projectors: join(stages, 'projectors'),
    gradients: join(stages, 'gradients'),
    gates: join(stages, 'gates'),
    curvature: join(stages, 'curvature'),
    passes: join(stages, 'passes'),
    result: join(dir, 'result'),
  };
}

export type PipelinePaths = ReturnType<typeof pipelinePaths>;

/** Input file hashes: checkpoint files by name per side, calibration files by set. */
export interface InputHashes {
  readonly instruct: Readonly<Record<string, string>>;
  readonly thinking: Readonly<Record<string, string>>;
  readonly reasoning: string;
  readonly agent: string;
  readonly format: string;
}

export interface PipelineRecord {
  readonly instruct: string;
  readonly thinking: string;
  readonly settings: PipelineSettings;
  readonly inputs: InputHashes;
}

const fileHashes = z.record(z.string(), z.string());
const pipelineRecordSchema: z.ZodType<PipelineRecord> = z.strictObject({
  instruct: z.string(),
  thinking: z.string(),
  settings: z.strictObject({
    analysis: analysisSettingsSchema, keepQuantile: z.number().min(0).lt(1), batchSequences: z.int().positive(), longSequences: z.enum(LONG_SEQUENCE_POLICIES).optional(),
    curvatureProbes: z.int().min(2).optional(),
  }),
  inputs: z.strictObject({ instruct: fileHashes, thinking: fileHashes, reasoning: z.string(), agent: z.string(), format: z.string() }),
});

export async function writePipelineRecord(dir: string, record: PipelineRecord): Promise<void> {
  await writeFileAtomic(pipelinePaths(dir).pipeline, `${JSON.stringify(record, null, 2)}\n`);
}

/** What pipeline.json says; a missing file is 'not-found', one of another shape a 'metadata' error naming it. */
export async function readPipelineRecord(dir: string): Promise<PipelineRecord> {
  const path = pipelinePaths(dir).pipeline;
  const record = await readJsonFile(path, pipelineRecordSchema, 'an analysis record written by `crane analyze` (run it again)');
  if (record === undefined) throw new CheckpointError('not-found', path, 'not an analysis folder made by `crane analyze` (no pipeline.json)');
  return record;
}

/** DIR/result when DIR is a pipeline folder, else DIR itself (a bare analysis-store folder). */
export async function resolveArtifactsDir(dir: string): Promise<string> {
  const result = pipelinePaths(dir).result;
  const exists = await access(join(result, ANALYSIS_FILES.manifest)).then(() => true, () => false);
  return exists ? result : dir;
}

/** The manifest key of the final artifacts: flat input hashes and the result-shaping settings. */
export function resultKey(inputs: InputHashes, settings: PipelineSettings): AnalysisKey {
  return { inputs: flatInputs(inputs), settings: resultSettings(settings) };
}

/**
 * The settings that shape an analysis' results: calibration paths are left out (the files' hashes
 * are inputs, and moving them changes nothing), and so is the batch size (memory only). The
 * long-sequence policy decides which tokens the gradients see; absent means the default. Of the
 * evaluation set only the share it holds out of the gradients counts: an evaluation file is
 * Verify's alone, so choosing one keeps the analysis.
 */
export function resultSettings(settings: PipelineSettings): Record<string, unknown> {
  const analysis: Record<string, unknown> = { ...settings.analysis, heldOutFraction: heldOutShare(settings.analysis.evaluation) };
  delete analysis.calibration;
  delete analysis.evaluation;
  return { analysis, keepQuantile: settings.keepQuantile, longSequences: settings.longSequences ?? DEFAULT_LONG_SEQUENCE_POLICY };
}

/** The finished, non-stale analysis of a pipeline folder; missing or stale is an error saying what to do. */
export async function loadPipelineAnalysis(dir: string): Promise<{ record: PipelineRecord; artifacts: AnalysisArtifacts }> {
  const record = await readPipelineRecord(dir);
  const result = pipelinePaths(dir).result;
  const loaded = await loadAnalysis(result, resultKey(record.inputs, record.settings));
  if (loaded.state === 'missing') throw new CheckpointError('not-found', result, 'no finished analysis: run `crane analyze` again (it resumes where it stopped)');
  if (loaded.state === 'stale') throw new CheckpointError('metadata', result, `is stale (${loaded.reasons.join('; ')}): run \`crane analyze\` again`);
  return { record, artifacts: loaded.artifacts };
}
