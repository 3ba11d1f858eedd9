/**
 * Streamed, atomic export of an edited checkpoint, and its reproduction from the recipe.
 *
 *   exportMerge({ instruct, thinking, method, analysisDir?, dtype, maxShardBytes?, outDir, … }) → ExportResult
 *   exportFromRecipe(recipe, { instruct, thinking, analysis?, outDir }, options?) → ExportResult
 *
 * Both go through one path: hash the inputs into a recipe (or check them against it), then
 * writeCheckpoint pulls tensor by tensor — read θ_I and θ_T of one tensor, edit, emit — so only
 * one tensor pair is held. The folder gets the shards (+ index), config.json (torch_dtype set to
 * the output dtype when converting), Instruct's tokenizer and generation files byte for byte,
 * `crane_recipe.json` and README.md. The recipe that is written is the parsed one in both paths,
 * so the same recipe and files give the same bytes. An incompatible pair (the pair report's
 * errors, e.g. a side without tensors) is refused before anything is written. Errors (NaN inputs,
 * hash mismatch, cancel, existing folder, full disk) leave nothing at outDir; `overwrite`
 * replaces only a previous export (previous-export.ts).
 */
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { engineVersion } from '../analysis/provenance.ts';
import type { CraneContext } from '../crane/crane-edit.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { writeCheckpoint, DEFAULT_MAX_SHARD_BYTES, type CheckpointWriteResult } from '../io/checkpoint-writer.ts';
import { assertCompatiblePair } from '../io/pair-report.ts';
import { produceEdited } from './edited-tensor.ts';
import { planExport, type PlannedTensor } from './export-plan.ts';
import { assertSameHashes, checkpointFiles, hashFiles, type HashProgress } from './input-hashes.ts';
import { loadEditAnalysis, methodEdit, needsAnalysis } from './method-edit.ts';
import { modelCard } from './model-card.ts';
import { assertPreviousExport } from './previous-export.ts';
import {
  parseRecipe, RECIPE_FILE, RECIPE_FORMAT, RECIPE_FORMAT_VERSION,
  type ExportDtype, type Recipe, type RecipeMethod,
} from './recipe.ts';

export type ExportProgress =
  | ({ readonly phase: 'hash' } & HashProgress)
  | { readonly phase: 'write'; readonly tensorsDone: number; readonly tensorsTotal: number; readonly bytesDone: number; readonly bytesTotal: number };

export interface ExportRunOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: ExportProgress) => void;
  /** Replace an existing outDir (swapped only once the new folder is complete). */
  readonly overwrite?: boolean;
}

export interface MergeExportOptions extends ExportRunOptions {
  readonly instruct: Checkpoint;
  readonly thinking: Checkpoint;
  readonly method: RecipeMethod;
  /** The analysis folder (analysis-store layout); needed by CRANE with the gate or GSP on. */
  readonly analysisDir?: string;
  readonly dtype: ExportDtype;
  readonly maxShardBytes?: number;
  readonly outDir: string;
}

export interface ExportPaths {
  readonly instruct: string;
  readonly thinking: string;
  readonly analysis?: string;
  readonly outDir: string;
}

export interface ExportResult extends CheckpointWriteResult {
  readonly recipe: Recipe;
  /** Tensors copied rather than edited, projections skipped, … (also in the model card). */
  readonly notes: readonly string[];
}

const TORCH_DTYPE = { F32: 'float32', F16: 'float16', BF16: 'bfloat16' } as const;

export async function exportMerge(options: MergeExportOptions): Promise<ExportResult> {
  const { instruct, thinking } = options;
  // Before hashing, which takes minutes on a large pair.
  await assertCompatiblePair(instruct, thinking);
  const { method } = options;
  const analysis = needsAnalysis(method) ? await loadEditAnalysis(requireAnalysisDir(options.analysisDir), options.signal) : null;
  const draft = {
    format: RECIPE_FORMAT,
    formatVersion: RECIPE_FORMAT_VERSION,
    engineVersion: await engineVersion(),
    method,
    analysis: analysis === null ? null : { files: analysis.files },
    inputs: { instruct: { files: await hashCheckpoint(instruct, options) }, thinking: { files: await hashCheckpoint(thinking, options) } },
    output: { dtype: options.dtype, maxShardBytes: options.maxShardBytes ?? DEFAULT_MAX_SHARD_BYTES },
  };
  // Through JSON and the parser, exactly as exportFromRecipe receives it.
  const recipe = parseRecipe(JSON.parse(JSON.stringify(draft)));
  return writeExport(recipe, instruct, thinking, analysis?.context ?? null, options.outDir, options);
}

export async function exportFromRecipe(recipeJson: unknown, paths: ExportPaths, options: ExportRunOptions = {}): Promise<ExportResult> {
  const recipe = parseRecipe(recipeJson);
  const version = await engineVersion();
  if (recipe.engineVersion !== version) {
    throw new CheckpointError('metadata', RECIPE_FILE, `was written by engine ${recipe.engineVersion}; this is ${version}, which need not reproduce it bit for bit`);
  }
  let context: CraneContext | null = null;
  if (recipe.analysis !== null) {
    const analysis = await loadEditAnalysis(requireAnalysisDir(paths.analysis), options.signal);
    assertSameHashes(paths.analysis as string, recipe.analysis.files, analysis.files, 'analysis');
    context = analysis.context;
  }
  const instruct = await Checkpoint.open(paths.instruct);
  try {
    const thinking = await Checkpoint.open(paths.thinking);
    try {
      await assertCompatiblePair(instruct, thinking);
      assertSameHashes(instruct.dir, recipe.inputs.instruct.files, await hashCheckpoint(instruct, options), 'Instruct');
      assertSameHashes(thinking.dir, recipe.inputs.thinking.files, await hashCheckpoint(thinking, options), 'Thinking');
      return await writeExport(recipe, instruct, thinking, context, paths.outDir, options);
    } finally {
      await thinking.close();
    }
  } finally {
    await instruct.close();
  }
}

async function writeExport(
  recipe: Recipe,
  instruct: Checkpoint,
  thinking: Checkpoint,
  context: CraneContext | null,
  outDir: string,
  options: ExportRunOptions,
): Promise<ExportResult> {
  const edit = methodEdit(recipe.method, context);
  const plan = new Map<string, PlannedTensor>(planExport(instruct, thinking, recipe.output.dtype).map((p) => [p.spec.name, p]));
  const notes: string[] = [];
  const written = await writeCheckpoint(outDir, {
    specs: [...plan.values()].map((p) => p.spec),
    produce: (spec) => produceEdited(plan.get(spec.name) as PlannedTensor, instruct, thinking, edit, notes),
    // transformers refuses safetensors shards whose metadata lacks a known format.
    metadata: { format: 'pt' },
    maxShardBytes: recipe.output.maxShardBytes,
    writeSideFiles: async (work) => {
      await writeConfig(instruct, work, recipe.output.dtype);
      for (const file of instruct.sideFiles) await copyFile(join(instruct.dir, file), join(work, file));
      await writeFile(join(work, RECIPE_FILE), `${JSON.stringify(recipe, null, 2)}\n`);
      await writeFile(join(work, 'README.md'), modelCard(recipe, notes));
    },
    onProgress: (p) => options.onProgress?.({ phase: 'write', ...p }),
    signal: options.signal,
    overwrite: options.overwrite ?? false,
    assertReplaceable: assertPreviousExport,
  });
  return { ...written, recipe, notes };
}

/** config.json byte for byte, or with torch_dtype set to the converted dtype. */
async function writeConfig(instruct: Checkpoint, work: string, dtype: ExportDtype): Promise<void> {
  const source = join(instruct.dir, 'config.json');
  if (dtype === 'source') return copyFile(source, join(work, 'config.json'));
  const config = JSON.parse(await readFile(source, 'utf8')) as Record<string, unknown>;
  await writeFile(join(work, 'config.json'), `${JSON.stringify({ ...config, torch_dtype: TORCH_DTYPE[dtype] }, null, 2)}\n`);
}

async function hashCheckpoint(checkpoint: Checkpoint, options: ExportRunOptions): Promise<Record<string, string>> {
  return hashFiles(checkpoint.dir, await checkpointFiles(checkpoint), {
    signal: options.signal,
    onProgress: (p) => options.onProgress?.({ phase: 'hash', ...p }),
  });
}

function requireAnalysisDir(dir: string | undefined): string {
  if (dir === undefined) throw new CheckpointError('not-found', 'analysis', 'this CRANE edit uses the gate or GSP, so it needs the analysis folder (gate table and projectors)');
  return dir;
}
