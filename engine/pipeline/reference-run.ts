/**
 * Runs of the CRANE reference pipeline (github.com/rpi-nsl/CRANE) in and out of the studio.
 *
 *   readReferenceRun(files) → AnalysisArtifacts          phase2_stats.json + format_projectors.pt (+ linattn file)
 *   importReferenceRun(files, outDir) → manifest         a studio analysis folder (analysis-store layout)
 *   exportReferenceRun(analysisDir, outDir) → file names  phase2_stats.json + format_projectors.pt for crane_merge.py
 *
 * An imported analysis has the gate (S as the reference stated it) and the projectors, so the
 * heatmap, masks, α/τ/k tuning, verify and export work on it; it has no gradients, so its preview
 * coefficients are empty and `origin: 'reference-run'` tells the preview to say so instead of
 * answering zeros. The spectra (σ_i/σ₁) are filled from the projectors for the spectrum view.
 * The reference's files are read with its merge's own rules: S by layer, then by component.
 */
import { access, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { writeAnalysis, type AnalysisArtifacts, type AnalysisKey, type AnalysisManifest } from '../analysis/analysis-store.ts';
import type { PreviewCoefficients } from '../analysis/preview-coefficients.ts';
import { sha256File } from '../analysis/provenance.ts';
import type { GspProjector } from '../crane/gsp-projector.ts';
import { buildDirectoryAtomically } from '../io/atomic-directory.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readTorchFile, writeTorchFile } from '../io/torch-file.ts';
import { DEFAULT_KEEP_QUANTILE } from '../protocol/settings-defaults.ts';
import { loadPipelineAnalysis } from './pipeline-folder.ts';
import { gateFromStats, readReferenceStats, REFERENCE_STATS_FILE, statsFromGate } from './reference-stats.ts';
import { projectorsFromTorch, projectorsToTorch, REFERENCE_PROJECTORS_FILE } from './reference-projectors.ts';

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
  return { gate, projectors, coefficients: spectraOnly(projectors), origin: 'reference-run' };
}

/** The manifest key of an imported run: its files' hashes; no analysis settings shaped it here. */
export async function referenceRunKey(files: ReferenceRunFiles): Promise<AnalysisKey> {
  const inputs: Record<string, string> = {};
  for (const path of [files.stats, files.projectors, files.projectorsLinattn]) {
    if (path !== undefined) inputs[`reference:${basename(path)}`] = await sha256File(path);
  }
  return { inputs, settings: { origin: 'reference-run' } };
}

export async function importReferenceRun(files: ReferenceRunFiles, outDir: string, options: { overwrite?: boolean } = {}): Promise<AnalysisManifest> {
  const artifacts = await readReferenceRun(files);
  if (options.overwrite !== true) await assertAbsent(outDir);
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

function spectraOnly(projectors: ReadonlyMap<string, GspProjector>): PreviewCoefficients {
  const spectra = new Map([...projectors].map(([key, { sigma }]) => {
    const first = sigma[0] ?? 0;
    return [key, sigma.map((s) => (first > 0 ? s / first : 0))];
  }));
  return { keepQuantile: DEFAULT_KEEP_QUANTILE, entries: [], scalars: new Float64Array(0), directions: new Float64Array(0), spectra };
}

async function assertAbsent(dir: string): Promise<void> {
  if (await access(dir).then(() => true, () => false)) throw new CheckpointError('exists', dir, 'output folder already exists (choose another or pass --overwrite)');
}
