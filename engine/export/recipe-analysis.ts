/**
 * The analysis files an edit reads, checked against the recipe's hashes, and their copies inside
 * the export folder, so that a recipe reproduces its export from that folder alone.
 *
 *   EDIT_ANALYSIS_FILES                      the gate table and the projectors (analysis-store names)
 *   EMBEDDED_ANALYSIS_FILES                  analysis name → the copy's name in an export folder
 *   analysisFolder(dir) / exportFolder(dir) → AnalysisSource
 *   loadEditAnalysis(source, expected?, signal?) → EditAnalysis { context, files, contents }
 *
 * Only the gate table and the projectors are read: the preview coefficients play no part in an
 * edit. An export carries them byte for byte (the gate table is tens of KB; the projectors are
 * d × r float32 per (layer, key): 0.3 MB on the demo pair, at most 48·2·2048·256·4 B ≈ 200 MB
 * on Qwen3-30B at the rank cap), so the hashes the recipe already records for the analysis
 * folder's files check the copies too. The projectors go in a safetensors file of their own, not
 * in the JSON recipe. The bytes are hashed and kept from one read: the copy written is exactly
 * what was checked.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ANALYSIS_FILES } from '../analysis/analysis-store.ts';
import { readGateTable } from '../analysis/gate-table-file.ts';
import { readProjectors } from '../analysis/projector-file.ts';
import type { CraneContext } from '../crane/crane-edit.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readRegularFile } from '../io/input-file.ts';

export const EDIT_ANALYSIS_FILES = [ANALYSIS_FILES.gate, ANALYSIS_FILES.projectors] as const;
type EditAnalysisFile = (typeof EDIT_ANALYSIS_FILES)[number];

export const EMBEDDED_ANALYSIS_FILES: Readonly<Record<EditAnalysisFile, string>> = {
  [ANALYSIS_FILES.gate]: 'crane_gate_table.json',
  [ANALYSIS_FILES.projectors]: 'crane_analysis.safetensors',
};

/** Where the edit's analysis files are: a folder and each file's name in it. */
export interface AnalysisSource {
  readonly dir: string;
  readonly names: Readonly<Record<EditAnalysisFile, string>>;
  /** For errors: "the analysis folder" or "the export folder". */
  readonly what: string;
}

export interface EditAnalysis {
  readonly context: CraneContext;
  /** SHA-256 by analysis-store name (the recipe's `analysis.files`). */
  readonly files: Record<string, string>;
  /** The bytes read, by analysis-store name, for the export's copies. */
  readonly contents: ReadonlyMap<EditAnalysisFile, Buffer>;
}

const sameNames = Object.fromEntries(EDIT_ANALYSIS_FILES.map((f) => [f, f])) as Record<EditAnalysisFile, string>;

export const analysisFolder = (dir: string): AnalysisSource => ({ dir, names: sameNames, what: 'the analysis folder' });
export const exportFolder = (dir: string): AnalysisSource => ({ dir, names: EMBEDDED_ANALYSIS_FILES, what: 'the export folder' });

/** Reads and hashes the files; with `expected` (the recipe's hashes) refuses any that differ, naming it. */
export async function loadEditAnalysis(source: AnalysisSource, expected?: Readonly<Record<string, string>>): Promise<EditAnalysis> {
  const files: Record<string, string> = {};
  const contents = new Map<EditAnalysisFile, Buffer>();
  for (const name of EDIT_ANALYSIS_FILES) {
    const path = join(source.dir, source.names[name]);
    const bytes = await readRegularFile(path).catch((error: unknown) => {
      if (error instanceof CheckpointError && error.code === 'not-found') throw new CheckpointError('not-found', path, `${source.what} has no ${source.names[name]} (the edit's ${name})`);
      throw error;
    });
    const hash = createHash('sha256').update(bytes).digest('hex');
    const want = expected?.[name];
    if (expected !== undefined && want !== hash) {
      throw new CheckpointError('metadata', path, want === undefined
        ? `is not among the recipe's analysis files`
        : `SHA-256 ${hash} differs from the recipe's ${want} (analysis ${name}): it is not the analysis this export was made with`);
    }
    files[name] = hash;
    contents.set(name, bytes);
  }
  const gate = await readGateTable(join(source.dir, source.names[ANALYSIS_FILES.gate]));
  const projectors = await readProjectors(join(source.dir, source.names[ANALYSIS_FILES.projectors]));
  return { context: { gate, projector: (key) => projectors.get(key) }, files, contents };
}

/** Writes the copies into an export's work folder under their export names. */
export async function writeEmbeddedAnalysis(work: string, analysis: EditAnalysis): Promise<void> {
  for (const [name, bytes] of analysis.contents) await writeFile(join(work, EMBEDDED_ANALYSIS_FILES[name]), bytes);
}
