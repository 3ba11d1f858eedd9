/**
 * `crane analyze --export DIR`: the analysis as open files, for checking, plotting or reuse
 * outside the studio. Written atomically (the folder appears complete or not at all); an existing
 * DIR is replaced only when a previous --export wrote it (its analysis.json), never any folder.
 *
 *   exportOpenArtifacts(analysisDir, outDir) → file names
 *
 *   gate-table.json              per (component, layer) block and global: Σp, Σs_R, Σs_A, ‖θ_I‖, S, …
 *   projectors.safetensors       `layer_{l}_attn_input.V` (d × r, F32) and `.sigma` (r, F64) per key
 *   calibration-sequences.jsonl  exact token ids, loss masks, format positions, split (calibration-sequences.ts)
 *   aim-importance.safetensors   per Linear module, mean |x| of its input (the AIM baselines' importance)
 *   analysis.json                settings and SHA-256 of every input (no local paths)
 * The files are copies of the cache's own (the same bytes the studio uses), not re-encodings.
 */
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ANALYSIS_FILES } from '../analysis/analysis-store.ts';
import { buildDirectoryAtomically } from '../io/atomic-directory.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readJsonObject } from '../io/input-file.ts';
import { loadPipelineAnalysis, pipelinePaths, resultSettings } from './pipeline-folder.ts';
import { AIM_IMPORTANCE_FILE } from './aim-importance.ts';

const SUMMARY_FILE = 'analysis.json';

export async function exportOpenArtifacts(analysisDir: string, outDir: string, options: { overwrite?: boolean } = {}): Promise<string[]> {
  const { record } = await loadPipelineAnalysis(analysisDir);
  const paths = pipelinePaths(analysisDir);
  const copies: [string, string][] = [
    [join(paths.result, ANALYSIS_FILES.gate), 'gate-table.json'],
    [join(paths.result, ANALYSIS_FILES.projectors), 'projectors.safetensors'],
    [paths.sequences, 'calibration-sequences.jsonl'],
    [join(paths.projectors, AIM_IMPORTANCE_FILE), AIM_IMPORTANCE_FILE],
  ];
  return buildDirectoryAtomically(outDir, async (work) => {
    for (const [from, to] of copies) await copyFile(from, join(work, to));
    const summary = { settings: resultSettings(record.settings), inputs: record.inputs };
    await writeFile(join(work, SUMMARY_FILE), `${JSON.stringify(summary, null, 2)}\n`);
    return [...copies.map(([, to]) => to), SUMMARY_FILE];
  }, { ...options, assertReplaceable: assertPreviousArtifacts });
}

/** Replacing deletes the old folder: only one a previous --export wrote (its analysis.json) qualifies. */
async function assertPreviousArtifacts(dir: string): Promise<void> {
  let reason: string | undefined;
  try {
    const summary = await readJsonObject(join(dir, SUMMARY_FILE), 'metadata');
    if (!('settings' in summary && 'inputs' in summary)) reason = `${SUMMARY_FILE} has no settings and inputs`;
  } catch (error) {
    if (!(error instanceof CheckpointError)) throw error;
    reason = error.message;
  }
  if (reason !== undefined) {
    throw new CheckpointError('exists', dir, `exists and is not a previous analysis export (${reason}); choose another folder or remove this one yourself`);
  }
}
