/**
 * `crane merge INSTRUCT THINKING --out DIR [--method …] [--analysis DIR] [settings]` and
 * `crane merge --recipe crane_recipe.json INSTRUCT THINKING --out DIR`: export an edited
 * checkpoint through engine/export (streamed, atomic, sharded, recipe + model card).
 */
import { dirname } from 'node:path';
import { exportFromRecipe, exportMerge, type ExportProgress, type ExportResult, type ExportRunOptions } from '../export/export-checkpoint.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { readJsonObject } from '../io/input-file.ts';
import { EDIT_FLAGS, EDIT_FLAGS_HELP, exportDtypeFromFlag, methodSettingsWithTokenRows, parseByteSize, type EditFlagValues } from './cli-settings.ts';
import { LEWIS_FILE_FLAGS, LEWIS_FILES_HELP } from './lewis-flags.ts';
import { mergeImportanceFromFlags } from './merge-importance.ts';
import { assertOverridesMatch } from './override-keys.ts';
import { checkAnalysisPair } from './analysis-pair.ts';
import { editTokenRows } from '../pipeline/checkpoint-tokenizer.ts';
import { resolveArtifactsDir } from '../pipeline/pipeline-folder.ts';
import { formatBytes } from '../protocol/format-bytes.ts';
import { parseCommandArgs, UsageError, type CliCommand, type CliIo } from './command.ts';
import { exportRainMerge } from '../pipeline/rain-export.ts';
import { RAIN_FLAGS, RAIN_FLAGS_HELP, rainInputsFromFlags, refuseRainRecipe, withCheckpoints, type RainInputs } from './rain-flags.ts';

const HELP = `Usage: crane merge INSTRUCT THINKING --out DIR [--method M] [--analysis DIR] [settings] [--dtype D] [--shard-size S]
       crane merge INSTRUCT THINKING --out DIR --method lewis (--importance-base F --importance-tuned F | --analysis DIR)
       crane merge INSTRUCT THINKING --out DIR --method rain --base BASE --rain-reasoning F --rain-instructions F [settings]
       crane merge --recipe EXPORT/crane_recipe.json INSTRUCT THINKING [--analysis DIR] [--allow-different-inputs] --out DIR

Writes the edited checkpoint (θ_I as the base) to DIR: sharded safetensors + index, config.json,
Instruct's tokenizer and generation files, crane_recipe.json (every setting and the SHA-256 of
every input) and a model card. Streamed tensor by tensor; DIR appears only when complete, and
NaN/Inf weights, a full disk or Ctrl-C leave nothing behind. CRANE with the gate or GSP on
needs --analysis (a crane analyze folder); the export keeps a copy of the gate table and the
projectors it read (crane_gate_table.json, crane_analysis.safetensors). AIM-TA and AIM-TIES
(--method aim, aim_ties) need --analysis: they read its AIM importance file. LEWIS reads the
importance files of both models: --importance-base/--importance-tuned, or the analysis' own,
measured there on first use (two forward passes per prompt) and kept for the next merge. The
export keeps a copy of each importance file (crane_aim_importance.safetensors,
crane_lewis_importance_{base,tuned}.{json,pt}) and the recipe its SHA-256.
With --recipe, the recipe's settings are used and every input must hash as the recipe says (a
differing file is refused, named): the output is bit-identical. The analysis is read from the
recipe's own folder (an export folder) unless --analysis names one. --allow-different-inputs
applies the recipe to other checkpoints instead (a new export whose recipe records their hashes,
not a reproduction); the analysis must still be the recipe's. INSTRUCT and THINKING
may also be given as --instruct / --thinking, and DIR as the last positional.
RAIN writes onto Thinking (its config and tokenizer files): the recipe records the hashes of
Base, Instruct, Thinking and both calibration files, the model card α per (layer, head).

${EDIT_FLAGS_HELP}
${LEWIS_FILES_HELP}
${RAIN_FLAGS_HELP}
Output:
  --out DIR         output folder (must not exist unless --overwrite)
  --dtype D         source (default) | bf16 | f16 | f32
  --shard-size S    largest shard, e.g. 5GB (default), 500MB, 2GiB
  --overwrite       replace DIR once the new one is complete; only a previous export
                    (a folder with a valid crane_recipe.json) is replaced, any other is refused
  --json            machine-readable summary
  -h, --help
`;

export const mergeCommand: CliCommand = {
  name: 'merge',
  summary: 'export an edited checkpoint (CRANE or a baseline, or from a recipe), streamed and atomic',
  help: HELP,
  run: async (args, io) => {
    const { values, positionals } = parseCommandArgs(args, {
      ...EDIT_FLAGS, ...LEWIS_FILE_FLAGS, ...RAIN_FLAGS, recipe: { type: 'string' }, analysis: { type: 'string' }, out: { type: 'string' }, instruct: { type: 'string' }, thinking: { type: 'string' },
      dtype: { type: 'string' }, 'shard-size': { type: 'string' }, overwrite: { type: 'boolean' }, json: { type: 'boolean' },
      'allow-different-inputs': { type: 'boolean' },
    });
    const rest = [...positionals];
    const instruct = values.instruct ?? rest.shift();
    const thinking = values.thinking ?? rest.shift();
    const out = values.out ?? rest.shift();
    if (instruct === undefined || thinking === undefined) throw new UsageError('expected the Instruct and Thinking checkpoint folders');
    if (out === undefined) throw new UsageError('--out DIR is required');
    if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
    const analysis = values.analysis === undefined ? undefined : await resolveArtifactsDir(values.analysis);
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.once('SIGINT', onSigint);
    const run = { signal: controller.signal, onProgress: progressPrinter(io), overwrite: values.overwrite === true };
    let result: ExportResult;
    try {
      result = await exportWith(values, { instruct, thinking, out, analysis }, run, io, controller.signal);
    } finally {
      process.off('SIGINT', onSigint);
    }
    if (values.json === true) io.out(JSON.stringify({ dir: result.dir, shards: result.shards, totalBytes: result.totalBytes, notes: result.notes, recipe: result.recipe }));
    else io.out(`wrote ${result.dir}: ${result.shards.length} shard(s), ${formatBytes(result.totalBytes)}${result.notes.length > 0 ? `; ${result.notes.length} notes in README.md` : ''}`);
    return 0;
  },
};

type MergeFlags = EditFlagValues & {
  recipe?: string; dtype?: string; 'shard-size'?: string; 'allow-different-inputs'?: boolean;
  analysis?: string; 'importance-base'?: string; 'importance-tuned'?: string;
};
type Paths = { instruct: string; thinking: string; out: string; analysis: string | undefined };

async function exportWith(values: MergeFlags, paths: Paths, run: ExportRunOptions, io: CliIo, signal: AbortSignal): Promise<ExportResult> {
  const { instruct, thinking, out, analysis } = paths;
  if (values.recipe !== undefined) {
    if (values['importance-base'] !== undefined || values['importance-tuned'] !== undefined) throw new UsageError('--importance-base/--importance-tuned: with --recipe, the importance files are the copies in the recipe\'s export folder');
    const recipePaths = { instruct, thinking, outDir: out, recipeDir: dirname(values.recipe), ...(analysis === undefined ? {} : { analysis }) };
    const recipe = await readRecipe(values.recipe);
    refuseRainRecipe(recipe, values.recipe);
    return exportFromRecipe(recipe, recipePaths, { ...run, allowDifferentInputs: values['allow-different-inputs'] === true });
  }
  if (values['allow-different-inputs'] === true) throw new UsageError('--allow-different-inputs goes with --recipe');
  const rain = rainInputsFromFlags(values);
  if (rain !== undefined) return exportRain(rain, paths, values, run);
  const method = await methodSettingsWithTokenRows(values, () => editTokenRows(instruct, (message) => io.err(`warning: ${message}`)));
  const importance = await mergeImportanceFromFlags(method.method, values, io, signal);
  // The folder as given: `analysis` is its result/ subfolder, which has no pipeline.json.
  if (values.analysis !== undefined) await checkAnalysisPair(values.analysis, { instruct, thinking }, (message) => io.err(`warning: ${message}`));
  return withPair(instruct, thinking, (pair) => {
    if (method.method === 'crane') assertOverridesMatch(method.settings.overrideScales, pair.instruct.tensors.values(), pair.instruct.dir);
    return exportMerge({
      ...pair, ...run, method, outDir: out, dtype: exportDtypeFromFlag(values.dtype),
      ...(values['shard-size'] === undefined ? {} : { maxShardBytes: parseByteSize(values['shard-size'], '--shard-size') }),
      ...(analysis === undefined ? {} : { analysisDir: analysis }),
      ...(importance === undefined ? {} : { importance }),
    });
  });
}

function exportRain(rain: RainInputs, paths: Paths, values: MergeFlags, run: ExportRunOptions): Promise<ExportResult> {
  return withCheckpoints([rain.base, paths.instruct, paths.thinking], ([base, instruct, thinking]) => exportRainMerge({
    ...run, base: base as Checkpoint, instruct: instruct as Checkpoint, thinking: thinking as Checkpoint,
    calibration: rain.calibration, settings: rain.settings, outDir: paths.out, dtype: exportDtypeFromFlag(values.dtype),
    ...(values['shard-size'] === undefined ? {} : { maxShardBytes: parseByteSize(values['shard-size'], '--shard-size') }),
  }));
}

async function withPair<T>(instruct: string, thinking: string, body: (pair: { instruct: Checkpoint; thinking: Checkpoint }) => Promise<T>): Promise<T> {
  const i = await Checkpoint.open(instruct);
  try {
    const t = await Checkpoint.open(thinking);
    try {
      return await body({ instruct: i, thinking: t });
    } finally {
      await t.close();
    }
  } finally {
    await i.close();
  }
}

/** A regular file of strict UTF-8 JSON (a FIFO named as the recipe would otherwise hang the read). */
const readRecipe = (path: string): Promise<unknown> => readJsonObject(path, 'metadata');

function progressPrinter(io: CliIo): ((p: ExportProgress) => void) | undefined {
  if (!io.isTty) return undefined;
  let last = -Infinity;
  return (p) => {
    const now = performance.now();
    const [done, total] = [p.bytesDone, p.bytesTotal];
    if (now - last < 1000 && done < total) return;
    last = now;
    io.err(`${p.phase === 'hash' ? 'hashing' : 'writing'} ${formatBytes(done)} / ${formatBytes(total)}`);
  };
}
