/**
 * Streamed, atomic export of an edited checkpoint, and its reproduction from the recipe.
 *
 *   exportMerge({ instruct, thinking, method, analysisDir?, importance?, dtype, maxShardBytes?, outDir, … }) → ExportResult
 *   exportFromRecipe(recipe, { instruct, thinking, analysis?, importance?, recipeDir?, outDir }, { allowDifferentInputs?, … }) → ExportResult
 *
 * Both go through one path: hash the inputs into a recipe (or check them against it), then
 * writeCheckpoint pulls tensor by tensor — read θ_I and θ_T of one tensor into two reusable
 * arrays, edit, emit (edited-tensor.ts) — so only one tensor pair is held. exportMerge hashes on
 * a worker thread while the tensors are written (the recipe, a side file, waits for the hashes);
 * exportFromRecipe checks the hashes before it writes anything. The folder gets the shards (+ index), config.json (torch_dtype set to
 * the output dtype when converting), Instruct's tokenizer and generation files byte for byte,
 * `crane_recipe.json`, README.md and, when the edit reads an analysis, copies of its gate table
 * and projectors (recipe-analysis.ts), and when it reads importance files (AIM, LEWIS) copies of
 * those (recipe-importance.ts): a recipe then reproduces from its export folder alone
 * (`recipeDir`), or from the analysis folder / the importance files named, whose files must hash
 * as the recipe says either way. The recipe that is written is the parsed one in both paths (with the copies named), so
 * the same recipe and files give the same bytes. An incompatible pair (the pair report's
 * errors, e.g. a side without tensors) is refused before anything is written. Errors (NaN inputs,
 * hash mismatch, cancel, existing folder, full disk) leave nothing at outDir; `overwrite`
 * replaces only a previous export (previous-export.ts).
 */
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { engineVersion } from '../analysis/provenance.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { writeCheckpoint, DEFAULT_MAX_SHARD_BYTES, type CheckpointWriteResult } from '../io/checkpoint-writer.ts';
import { assertCompatiblePair } from '../io/pair-report.ts';
import { exportBuffers, produceEdited } from './edited-tensor.ts';
import { planExport, type PlannedTensor } from './export-plan.ts';
import { assertSameHashes, checkpointFiles, hashFiles, type HashProgress } from './input-hashes.ts';
import { methodBlockEdits, methodEdit, needsAnalysis } from './method-edit.ts';
import {
  embeddedImportance, loadEditImportance, writeEmbeddedImportance, type EditImportance, type ImportanceSource,
} from './recipe-importance.ts';
import { modelCard } from './model-card.ts';
import { assertPreviousExport } from './previous-export.ts';
import {
  analysisFolder, EMBEDDED_ANALYSIS_FILES, exportFolder, loadEditAnalysis, writeEmbeddedAnalysis, type EditAnalysis,
} from './recipe-analysis.ts';
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
  /** The importance files AIM (`aim`) or LEWIS (`lewisBase`, `lewisTuned`) reads. */
  readonly importance?: ImportanceSource;
  readonly dtype: ExportDtype;
  readonly maxShardBytes?: number;
  readonly outDir: string;
}

export interface ExportPaths {
  readonly instruct: string;
  readonly thinking: string;
  /** The analysis folder; checked against the recipe's hashes. */
  readonly analysis?: string;
  /** AIM's or LEWIS's importance files; checked against the recipe's hashes. */
  readonly importance?: ImportanceSource;
  /** The folder the recipe was read from: an export's copies stand in when `analysis` / `importance` is absent. */
  readonly recipeDir?: string;
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
  const analysis = needsAnalysis(method) ? await loadEditAnalysis(analysisFolder(requireAnalysisDir(options.analysisDir))) : null;
  const importance = await loadEditImportance(method, options.importance ?? { paths: {}, what: 'importance' });
  const draft = {
    format: RECIPE_FORMAT,
    formatVersion: RECIPE_FORMAT_VERSION,
    engineVersion: await engineVersion(),
    method,
    analysis: analysis === null ? null : { files: analysis.files },
    importance: importance?.entries ?? null,
    output: { dtype: options.dtype, maxShardBytes: options.maxShardBytes ?? DEFAULT_MAX_SHARD_BYTES },
  };
  // Through JSON and the parser, exactly as exportFromRecipe receives it.
  const parsed = (inputs: Recipe['inputs']) => withEmbeddedAnalysis(parseRecipe(JSON.parse(JSON.stringify({ ...draft, inputs }))));
  // The inputs are hashed on a worker while the tensors are edited and written; the recipe, written last, waits for them.
  const stop = new AbortController();
  const signal = options.signal === undefined ? stop.signal : AbortSignal.any([options.signal, stop.signal]);
  let writing = false;
  // Progress stays in order: hash events only until the first tensor is written (hashing is the faster of the two).
  const onProgress = (p: ExportProgress) => {
    writing ||= p.phase === 'write';
    if (p.phase === 'write' || !writing) options.onProgress?.(p);
  };
  const hashed = (async () => {
    const hashOptions = { signal, onProgress };
    return { instruct: { files: await hashCheckpoint(instruct, hashOptions) }, thinking: { files: await hashCheckpoint(thinking, hashOptions) } };
  })();
  const written = hashed.then(parsed);
  written.catch(() => undefined); // a failure surfaces where the side files await it; an export that fails first leaves it unawaited
  try {
    const provisional = parsed({ instruct: { files: {} }, thinking: { files: {} } });
    return await writeExport(provisional, written, instruct, thinking, { analysis, importance }, options.outDir, { ...options, onProgress });
  } finally {
    stop.abort();
  }
}

export interface RecipeRunOptions extends ExportRunOptions {
  /**
   * Apply the recipe to checkpoints other than its own: their hashes replace the recipe's in the
   * recipe written (the result is a new export, not a reproduction). The analysis must still match.
   */
  readonly allowDifferentInputs?: boolean;
}

export async function exportFromRecipe(recipeJson: unknown, paths: ExportPaths, options: RecipeRunOptions = {}): Promise<ExportResult> {
  const recipe = parseRecipe(recipeJson);
  const version = await engineVersion();
  if (recipe.engineVersion !== version) {
    throw new CheckpointError('metadata', RECIPE_FILE, `was written by engine ${recipe.engineVersion}; this is ${version}, which need not reproduce it bit for bit`);
  }
  const analysis = await recipeAnalysis(recipe, paths);
  const importance = await recipeImportance(recipe, paths);
  const instruct = await Checkpoint.open(paths.instruct);
  try {
    const thinking = await Checkpoint.open(paths.thinking);
    try {
      await assertCompatiblePair(instruct, thinking);
      const inputs = { instruct: { files: await hashCheckpoint(instruct, options) }, thinking: { files: await hashCheckpoint(thinking, options) } };
      if (options.allowDifferentInputs !== true) {
        assertSameHashes(instruct.dir, recipe.inputs.instruct.files, inputs.instruct.files, 'Instruct');
        assertSameHashes(thinking.dir, recipe.inputs.thinking.files, inputs.thinking.files, 'Thinking');
      }
      const written = withEmbeddedAnalysis({ ...recipe, inputs });
      return await writeExport(written, Promise.resolve(written), instruct, thinking, { analysis, importance }, paths.outDir, options);
    } finally {
      await thinking.close();
    }
  } finally {
    await instruct.close();
  }
}

/** What the edit reads beside the pair, each copied into the export. */
interface EditInputs {
  readonly analysis: EditAnalysis | null;
  readonly importance: EditImportance | null;
}

/** `recipe` gives the edit and the output settings; `written` (the same with the input hashes) is awaited only for the side files. */
async function writeExport(
  recipe: Recipe,
  written: Promise<Recipe>,
  instruct: Checkpoint,
  thinking: Checkpoint,
  { analysis, importance }: EditInputs,
  outDir: string,
  options: ExportRunOptions,
): Promise<ExportResult> {
  const edit = methodEdit(recipe.method, analysis?.context ?? null, importance?.values ?? null);
  const blockEdits = methodBlockEdits(recipe.method);
  const plan = new Map<string, PlannedTensor>(planExport(instruct, thinking, recipe.output.dtype).map((p) => [p.spec.name, p]));
  const buffers = exportBuffers([...plan.values()], instruct, thinking);
  const notes: string[] = [];
  const result = await writeCheckpoint(outDir, {
    specs: [...plan.values()].map((p) => p.spec),
    produce: (spec) => produceEdited(plan.get(spec.name) as PlannedTensor, instruct, thinking, edit, notes, buffers, blockEdits),
    // transformers refuses safetensors shards whose metadata lacks a known format.
    metadata: { format: 'pt' },
    maxShardBytes: recipe.output.maxShardBytes,
    writeSideFiles: async (work) => {
      const final = await written;
      await writeConfig(instruct, work, recipe.output.dtype);
      for (const file of instruct.sideFiles) await copyFile(join(instruct.dir, file), join(work, file));
      await writeFile(join(work, RECIPE_FILE), `${JSON.stringify(final, null, 2)}\n`);
      if (analysis !== null) await writeEmbeddedAnalysis(work, analysis);
      if (importance !== null) await writeEmbeddedImportance(work, importance);
      await writeFile(join(work, 'README.md'), modelCard(final, notes));
    },
    onProgress: (p) => options.onProgress?.({ phase: 'write', ...p }),
    signal: options.signal,
    overwrite: options.overwrite ?? false,
    assertReplaceable: assertPreviousExport,
  }).finally(() => buffers.close());
  return { ...result, recipe: await written, notes };
}

/** config.json byte for byte, or with torch_dtype set to the converted dtype (also RAIN's export, from Thinking). */
export async function writeConfig(instruct: Checkpoint, work: string, dtype: ExportDtype): Promise<void> {
  const source = join(instruct.dir, 'config.json');
  if (dtype === 'source') return copyFile(source, join(work, 'config.json'));
  const config = JSON.parse(await readFile(source, 'utf8')) as Record<string, unknown>;
  await writeFile(join(work, 'config.json'), `${JSON.stringify({ ...config, torch_dtype: TORCH_DTYPE[dtype] }, null, 2)}\n`);
}

export async function hashCheckpoint(checkpoint: Checkpoint, options: Pick<ExportRunOptions, 'signal' | 'onProgress'>): Promise<Record<string, string>> {
  return hashFiles(checkpoint.dir, await checkpointFiles(checkpoint), {
    signal: options.signal,
    onProgress: (p) => options.onProgress?.({ phase: 'hash', ...p }),
  });
}

function requireAnalysisDir(dir: string | undefined): string {
  if (dir === undefined) throw missingAnalysis();
  return dir;
}

function missingAnalysis(why = ''): CheckpointError {
  return new CheckpointError('not-found', 'analysis', `this CRANE edit uses the gate or GSP, so it needs the analysis folder (gate table and projectors)${why}`);
}

/** The analysis folder when given, else the export folder's copies; either must hash as the recipe says. */
async function recipeAnalysis(recipe: Recipe, paths: ExportPaths): Promise<EditAnalysis | null> {
  if (recipe.analysis === null) return null;
  if (paths.analysis !== undefined) return loadEditAnalysis(analysisFolder(paths.analysis), recipe.analysis.files);
  if (recipe.analysis.embedded !== undefined && paths.recipeDir !== undefined) return loadEditAnalysis(exportFolder(paths.recipeDir), recipe.analysis.files);
  throw missingAnalysis(recipe.analysis.embedded === undefined ? '; this recipe predates exports that carry their analysis' : '');
}

/** The importance files named when given, else the export folder's copies; either must hash as the recipe says. */
async function recipeImportance(recipe: Recipe, paths: ExportPaths): Promise<EditImportance | null> {
  if (recipe.importance === null) return null;
  const source = paths.importance ?? (paths.recipeDir === undefined ? undefined : embeddedImportance(paths.recipeDir, recipe.importance));
  if (source === undefined) throw new CheckpointError('not-found', 'importance', `this ${recipe.method.method} recipe reads its importance files: give the recipe's export folder, which holds their copies`);
  return loadEditImportance(recipe.method, source, recipe.importance);
}

/** Every export carries its analysis, so the recipe it writes names the copies. */
function withEmbeddedAnalysis(recipe: Recipe): Recipe {
  return recipe.analysis === null ? recipe : { ...recipe, analysis: { ...recipe.analysis, embedded: { ...EMBEDDED_ANALYSIS_FILES } } };
}
