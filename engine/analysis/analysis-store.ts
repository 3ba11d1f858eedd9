/**
 * The on-disk analysis cache: one directory per analysis, written atomically, with a manifest
 * that says exactly what it was computed from.
 *
 *   writeAnalysis(dir, artifacts, key) → AnalysisManifest
 *   loadAnalysis(dir, key) → { state: 'missing' } | { state: 'stale', reasons } | { state: 'cached', artifacts, manifest }
 *
 * Layout: manifest.json, gate-table.json, projectors.safetensors, preview-coefficients.safetensors.
 * The manifest holds the format version, the engine version, the caller's input hashes
 * (checkpoint files, calibration sets) and the analysis settings, plus the SHA-256 of each
 * artifact file. Any difference — versions, inputs, settings, a changed or missing artifact —
 * makes the cache `stale` with the reasons listed: it is never used silently. An engine version
 * bump invalidates too, because a numerics change need not change the format.
 * A manifest that is not JSON of the manifest's shape (zod-checked) is also `stale`, with the
 * file named in the reason (the cache is recomputable, so it must not block the user); artifacts
 * whose hashes match but whose content is malformed throw, since only a bug in this writer could
 * produce them.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { GateTable } from '../crane/gate-scales.ts';
import type { GspProjector } from '../crane/gsp-projector.ts';
import { buildDirectoryAtomically } from '../io/atomic-directory.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readJsonFile } from '../io/json-file.ts';
import { canonicalJson } from '../io/tokenizer-files.ts';
import { readCoefficients, writeCoefficients } from './coefficient-file.ts';
import { gateTableJson, readGateTableFile, type GateOrigin } from './gate-table-file.ts';
import type { PreviewCoefficients } from './preview-coefficients.ts';
import { readProjectors, writeProjectors } from './projector-file.ts';
import { engineVersion, sha256File } from './provenance.ts';

export const ANALYSIS_FORMAT = 'crane-analysis';
export const ANALYSIS_FORMAT_VERSION = 1;

export const ANALYSIS_FILES = {
  manifest: 'manifest.json',
  gate: 'gate-table.json',
  projectors: 'projectors.safetensors',
  coefficients: 'preview-coefficients.safetensors',
} as const;

export interface AnalysisArtifacts {
  readonly gate: GateTable;
  readonly projectors: ReadonlyMap<string, GspProjector>;
  readonly coefficients: PreviewCoefficients;
  /**
   * 'reference-run' when the gate and projectors were imported from the reference pipeline
   * (pipeline/reference-run.ts): there were no gradients, so the coefficients are empty and the
   * preview cannot answer. Absent for analyses computed here.
   */
  readonly origin?: GateOrigin;
}

/** What an analysis depends on: input file hashes by name, and the settings that shape it. */
export interface AnalysisKey {
  readonly inputs: Readonly<Record<string, string>>;
  readonly settings: unknown;
}

export interface AnalysisManifest extends AnalysisKey {
  readonly format: typeof ANALYSIS_FORMAT;
  readonly formatVersion: number;
  readonly engineVersion: string;
  /** SHA-256 of every artifact file, by file name. */
  readonly files: Readonly<Record<string, string>>;
}

const manifestSchema = z.strictObject({
  format: z.literal(ANALYSIS_FORMAT),
  formatVersion: z.int(),
  engineVersion: z.string(),
  inputs: z.record(z.string(), z.string()),
  settings: z.json(),
  files: z.record(z.string(), z.string()),
});

export type LoadedAnalysis =
  | { readonly state: 'missing' }
  | { readonly state: 'stale'; readonly reasons: readonly string[] }
  | { readonly state: 'cached'; readonly artifacts: AnalysisArtifacts; readonly manifest: AnalysisManifest };

export async function writeAnalysis(dir: string, artifacts: AnalysisArtifacts, key: AnalysisKey): Promise<AnalysisManifest> {
  return buildDirectoryAtomically(
    dir,
    async (work) => {
      await writeFile(join(work, ANALYSIS_FILES.gate), `${JSON.stringify(gateTableJson(artifacts.gate, artifacts.origin), null, 1)}\n`);
      await writeProjectors(join(work, ANALYSIS_FILES.projectors), artifacts.projectors);
      await writeCoefficients(join(work, ANALYSIS_FILES.coefficients), artifacts.coefficients);
      const files: Record<string, string> = {};
      for (const file of artifactFiles()) files[file] = await sha256File(join(work, file));
      const manifest: AnalysisManifest = {
        format: ANALYSIS_FORMAT, formatVersion: ANALYSIS_FORMAT_VERSION, engineVersion: await engineVersion(), inputs: key.inputs, settings: key.settings, files,
      };
      await writeFile(join(work, ANALYSIS_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
      return manifest;
    },
    // A cache is replaced, never appended to; the old one stays until the new one is complete.
    { overwrite: true },
  );
}

export async function loadAnalysis(dir: string, key: AnalysisKey): Promise<LoadedAnalysis> {
  let manifest: AnalysisManifest | undefined;
  try {
    manifest = await readJsonFile(join(dir, ANALYSIS_FILES.manifest), manifestSchema, 'an analysis manifest');
  } catch (error) {
    if (error instanceof CheckpointError) return { state: 'stale', reasons: [error.message] };
    throw error;
  }
  if (manifest === undefined) return { state: 'missing' };
  const reasons = [...await staleReasons(manifest, key), ...await changedFiles(dir, manifest)];
  if (reasons.length > 0) return { state: 'stale', reasons };
  const { table: gate, origin } = await readGateTableFile(join(dir, ANALYSIS_FILES.gate));
  const artifacts: AnalysisArtifacts = {
    gate,
    projectors: await readProjectors(join(dir, ANALYSIS_FILES.projectors)),
    coefficients: await readCoefficients(join(dir, ANALYSIS_FILES.coefficients)),
    ...(origin === 'reference-run' ? { origin } : {}),
  };
  return { state: 'cached', artifacts, manifest };
}

async function staleReasons(manifest: AnalysisManifest, key: AnalysisKey): Promise<string[]> {
  const reasons: string[] = [];
  if (manifest.formatVersion !== ANALYSIS_FORMAT_VERSION) reasons.push(`format version ${manifest.formatVersion} ≠ ${ANALYSIS_FORMAT_VERSION}`);
  const version = await engineVersion();
  if (manifest.engineVersion !== version) reasons.push(`computed by engine ${manifest.engineVersion}, this is ${version}`);
  const stored = manifest.inputs;
  for (const name of new Set([...Object.keys(stored), ...Object.keys(key.inputs)])) {
    if (stored[name] !== key.inputs[name]) reasons.push(`input ${name}: ${stored[name] ?? 'absent'} then, ${key.inputs[name] ?? 'absent'} now`);
  }
  // Through JSON first, so that what the manifest could store (no undefined, no Map) is compared.
  if (canonicalJson(manifest.settings) !== canonicalJson(JSON.parse(JSON.stringify(key.settings ?? null)))) reasons.push('analysis settings changed');
  return reasons;
}

async function changedFiles(dir: string, manifest: AnalysisManifest): Promise<string[]> {
  const reasons: string[] = [];
  for (const file of artifactFiles()) {
    const expected = manifest.files[file];
    const actual = await sha256File(join(dir, file)).catch(() => undefined);
    if (actual === undefined) reasons.push(`${file} is missing`);
    else if (actual !== expected) reasons.push(`${file} changed since it was written`);
  }
  return reasons;
}

function artifactFiles(): string[] {
  return [ANALYSIS_FILES.gate, ANALYSIS_FILES.projectors, ANALYSIS_FILES.coefficients];
}
