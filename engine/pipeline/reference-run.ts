/**
 * Runs of the CRANE reference pipeline (github.com/rpi-nsl/CRANE) in and out of the studio.
 *
 *   readReferenceRun(files) → AnalysisArtifacts          phase2_stats.json + format_projectors.pt (+ linattn file)
 *   importReferenceRun(files, outDir) → manifest         a studio analysis folder (analysis-store layout)
 *   importIntoPipeline(analysisDir, files, run)           the same as a pipeline folder's result (a project's analysis)
 *   referenceRunFilesIn(dir) → ReferenceRunFiles        a run's folder: its files by the reference's names
 *   exportReferenceRun(analysisDir, outDir) → file names  phase2_stats.json + format_projectors.pt for crane_merge.py
 *
 * An imported analysis has the gate (S as the reference stated it) and the projectors, so the
 * heatmap, masks, α/τ/k tuning, verify and export work on it; it has no gradients, so its preview
 * coefficients are empty and `origin: 'reference-run'` tells the preview to say so instead of
 * answering zeros. (The spectrum view reads σ from the projectors themselves.)
 * The reference's files are read with its merge's own rules: S by layer, then by component.
 */
import { access, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ANALYSIS_FILES, writeAnalysis, type AnalysisArtifacts, type AnalysisKey, type AnalysisManifest } from '../analysis/analysis-store.ts';
import type { PreviewCoefficients } from '../analysis/preview-coefficients.ts';
import { sha256File } from '../analysis/provenance.ts';
import { buildDirectoryAtomically } from '../io/atomic-directory.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readTorchFile, writeTorchFile } from '../io/torch-file.ts';
import { DEFAULT_KEEP_QUANTILE } from '../protocol/settings-defaults.ts';
import type { PipelineSettings } from './analysis-settings.ts';
import { loadPipelineAnalysis, pipelinePaths, resultKey, writePipelineRecord, type InputHashes } from './pipeline-folder.ts';
import { gateFromStats, readReferenceStats, REFERENCE_STATS_FILE, statsFromGate } from './reference-stats.ts';
import { projectorsFromTorch, projectorsToTorch, REFERENCE_LINATTN_FILE, REFERENCE_PROJECTORS_FILE } from './reference-projectors.ts';

export interface ReferenceRunFiles {
  /** phase2_stats.json (crane_s_reason_auto.py). */
  readonly stats: string;
  /** format_projectors.pt (crane_gsp.py). */
  readonly projectors: string;
  /** format_projectors_linattn_inner.pt (crane_gsp_linattn_inner.py), Qwen3-Next only. */
  readonly projectorsLinattn?: string | undefined;
}

export async function readReferenceRun(files: ReferenceRunFiles): Promise<AnalysisArtifacts> {
  const stats = await readReferenceStats(files.stats);
  const gate = gateFromStats(stats, files.stats);
  const exactSigma = new Map(Object.entries(stats.crane_studio?.sigma ?? {}));
  const projectors = projectorsFromTorch(await readTorchFile(files.projectors), files.projectors, exactSigma);
  if (files.projectorsLinattn !== undefined) {
    for (const [key, projector] of projectorsFromTorch(await readTorchFile(files.projectorsLinattn), files.projectorsLinattn)) {
      if (projectors.has(key)) throw new CheckpointError('metadata', files.projectorsLinattn, `is also in ${files.projectors}`, key);
      projectors.set(key, projector);
    }
  }
  return { gate, projectors, coefficients: NO_COEFFICIENTS, origin: 'reference-run' };
}

/** The manifest key of an imported run: its files' hashes; no analysis settings shaped it here. */
async function referenceRunKey(files: ReferenceRunFiles): Promise<AnalysisKey> {
  const inputs: Record<string, string> = {};
  for (const path of [files.stats, files.projectors, files.projectorsLinattn]) {
    if (path !== undefined) inputs[`reference:${basename(path)}`] = await sha256File(path);
  }
  return { inputs, settings: { origin: 'reference-run' } };
}

/** The files of a run's output folder, by the names the reference's scripts give them; the linear-attention file only when present. */
export async function referenceRunFilesIn(dir: string): Promise<ReferenceRunFiles> {
  const [stats, projectors, linattn] = [REFERENCE_STATS_FILE, REFERENCE_PROJECTORS_FILE, REFERENCE_LINATTN_FILE].map((name) => join(dir, name)) as [string, string, string];
  for (const required of [stats, projectors]) {
    if (!await exists(required)) throw new CheckpointError('not-found', required, `a reference run's folder holds ${REFERENCE_STATS_FILE} and ${REFERENCE_PROJECTORS_FILE}`);
  }
  return { stats, projectors, ...(await exists(linattn) ? { projectorsLinattn: linattn } : {}) };
}

/** What the preview answers on an imported analysis (its handler and `crane preview` both). */
export const PREVIEW_NEEDS_GRADIENTS = 'the preview needs gradients — this analysis was imported from a reference run, which carries none: run Analyze here for the preview and Verify, or score an export with crane score';

/**
 * A reference run as the finished analysis of a pipeline folder (a project's `analysis/`), for the
 * pair and settings it is opened with. pipeline.json records the pair and, in place of the
 * calibration files' hashes, the reference files' (`reference-run …`), so the next Analyze sees
 * different inputs and recomputes rather than reusing this result. The result is written before
 * the record: an interruption between the two leaves a stale analysis, never a mixed one.
 */
export async function importIntoPipeline(
  analysisDir: string,
  files: ReferenceRunFiles,
  run: { readonly instruct: string; readonly thinking: string; readonly settings: PipelineSettings },
): Promise<AnalysisArtifacts> {
  const artifacts = await readReferenceRun(files);
  const hashes = (await referenceRunKey(files)).inputs;
  const label = (path: string | undefined) => (path === undefined ? 'reference-run: none' : `reference-run ${basename(path)} ${hashes[`reference:${basename(path)}`]}`);
  const inputs: InputHashes = { instruct: {}, thinking: {}, reasoning: label(files.stats), agent: label(files.projectors), format: label(files.projectorsLinattn) };
  await writeAnalysis(pipelinePaths(analysisDir).result, artifacts, resultKey(inputs, run.settings));
  await writePipelineRecord(analysisDir, { instruct: run.instruct, thinking: run.thinking, settings: run.settings, inputs });
  return artifacts;
}

export async function importReferenceRun(files: ReferenceRunFiles, outDir: string, options: { overwrite?: boolean } = {}): Promise<AnalysisManifest> {
  const artifacts = await readReferenceRun(files);
  await assertWritable(outDir, options.overwrite === true);
  return writeAnalysis(outDir, artifacts, await referenceRunKey(files));
}

/** A finished studio analysis (a crane analyze folder) as the reference's two files. */
export async function exportReferenceRun(analysisDir: string, outDir: string, options: { overwrite?: boolean } = {}): Promise<string[]> {
  const { artifacts } = await loadPipelineAnalysis(analysisDir);
  const sigma = new Map([...artifacts.projectors].map(([key, p]) => [key, p.sigma]));
  return buildDirectoryAtomically(outDir, async (work) => {
    await writeFile(join(work, REFERENCE_STATS_FILE), `${JSON.stringify(statsFromGate(artifacts.gate, sigma), null, 2)}\n`);
    await writeTorchFile(join(work, REFERENCE_PROJECTORS_FILE), projectorsToTorch(artifacts.projectors));
    return [REFERENCE_STATS_FILE, REFERENCE_PROJECTORS_FILE];
  }, { ...options, assertReplaceable: assertPreviousExport });
}

/** Replacing deletes the old folder: only one holding a previous export's stats file qualifies. */
async function assertPreviousExport(dir: string): Promise<void> {
  await readReferenceStats(join(dir, REFERENCE_STATS_FILE)).catch((error: unknown) => {
    const reason = error instanceof CheckpointError ? error.message : String(error);
    throw new CheckpointError('exists', dir, `exists and is not a previous reference export (${reason}); choose another folder or remove this one yourself`);
  });
}

const NO_COEFFICIENTS: PreviewCoefficients = {
  keepQuantile: DEFAULT_KEEP_QUANTILE, entries: [], scalars: new Float64Array(0), directions: new Float64Array(0), spectra: new Map(),
};

const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

/** writeAnalysis replaces its target whole: only a previous analysis folder (its manifest.json) may be replaced, and only when asked. */
async function assertWritable(dir: string, overwrite: boolean): Promise<void> {
  if (!await exists(dir)) return;
  if (!overwrite) throw new CheckpointError('exists', dir, 'output folder already exists (choose another or pass --overwrite)');
  if (!await exists(join(dir, ANALYSIS_FILES.manifest))) throw new CheckpointError('exists', dir, `exists and is not an analysis folder (no ${ANALYSIS_FILES.manifest}); choose another folder or remove this one yourself`);
}
