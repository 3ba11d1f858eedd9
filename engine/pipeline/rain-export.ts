/**
 * A RAIN merge written as a checkpoint: Thinking with RAIN's q/k/v/o tensors in place.
 *
 *   exportRainMerge({ base, instruct, thinking, calibration, settings, dtype, outDir, … }) → ExportResult
 *
 * Thinking is the side the output is based on (rain.py writes the merge onto its target), so the
 * tensor plan, config.json and the tokenizer/generation files are Thinking's; the tensors go
 * through the export's own producer (finite checks, dtype conversion) with the merged weights of
 * the edited layers and Thinking's elsewhere, streamed and atomic as every export. The recipe
 * records the SHA-256 of every file of all three checkpoints and of the two calibration files,
 * and the settings; the model card lists α per (layer, head). `crane merge --recipe` does not
 * rebuild a RAIN export yet (merge-command.ts says so).
 */
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { engineVersion, sha256File } from '../analysis/provenance.ts';
import type { PairedEdit } from '../crane/tensor-pair.ts';
import { writeCheckpoint, DEFAULT_MAX_SHARD_BYTES } from '../io/checkpoint-writer.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { hashCheckpoint, writeConfig, type ExportResult, type ExportRunOptions } from '../export/export-checkpoint.ts';
import { produceEdited } from '../export/edited-tensor.ts';
import { planExport, type PlannedTensor } from '../export/export-plan.ts';
import { modelCard } from '../export/model-card.ts';
import { assertPreviousExport } from '../export/previous-export.ts';
import { parseRecipe, RECIPE_FILE, RECIPE_FORMAT, RECIPE_FORMAT_VERSION, type ExportDtype } from '../export/recipe.ts';
import type { RainSettings } from '../protocol/settings-schemas.ts';
import { assertRainTriple, runRainMerge, type RainCalibrationFiles, type RainMerge } from './rain-merge.ts';

export interface RainExportOptions extends ExportRunOptions {
  readonly base: Checkpoint;
  readonly instruct: Checkpoint;
  readonly thinking: Checkpoint;
  readonly calibration: RainCalibrationFiles;
  readonly settings: RainSettings;
  readonly dtype: ExportDtype;
  readonly maxShardBytes?: number;
  readonly outDir: string;
  readonly onMergeProgress?: (fraction: number, text: string) => void;
}

export async function exportRainMerge(options: RainExportOptions): Promise<ExportResult & { readonly merge: RainMerge }> {
  const { base, instruct, thinking, outDir } = options;
  // Before hashing and the model passes: a mismatched Base is refused in seconds.
  await assertRainTriple(base, instruct, thinking);
  const hash = (checkpoint: Checkpoint) => hashCheckpoint(checkpoint, options);
  const draft = {
    format: RECIPE_FORMAT,
    formatVersion: RECIPE_FORMAT_VERSION,
    engineVersion: await engineVersion(),
    method: options.settings,
    analysis: null,
    importance: null,
    inputs: {
      instruct: { files: await hash(instruct) },
      thinking: { files: await hash(thinking) },
      base: { files: await hash(base) },
      rainCalibration: { reasoning: await sha256File(options.calibration.reasoning, options.signal), instructions: await sha256File(options.calibration.instructions, options.signal) },
    },
    output: { dtype: options.dtype, maxShardBytes: options.maxShardBytes ?? DEFAULT_MAX_SHARD_BYTES },
  };
  const recipe = parseRecipe(JSON.parse(JSON.stringify(draft)));
  const merge = await runRainMerge({ base, instruct, thinking, calibration: options.calibration, settings: options.settings, ...(options.onMergeProgress === undefined ? {} : { onProgress: options.onMergeProgress }) });
  // Thinking on both sides of the producer: the output is Thinking's, RAIN's tensors replace its own.
  const edit: PairedEdit = (name, _shape, thetaT) => ({ values: merge.tensors.get(name) ?? thetaT });
  const plan = new Map<string, PlannedTensor>(planExport(thinking, thinking, recipe.output.dtype).map((p) => [p.spec.name, p]));
  const notes = [...merge.notes, ...alphaNotes(merge)];
  const written = await writeCheckpoint(outDir, {
    specs: [...plan.values()].map((p) => p.spec),
    produce: (spec) => produceEdited(plan.get(spec.name) as PlannedTensor, thinking, thinking, edit, []),
    metadata: { format: 'pt' },
    maxShardBytes: recipe.output.maxShardBytes,
    writeSideFiles: async (work) => {
      await writeConfig(thinking, work, recipe.output.dtype);
      for (const file of thinking.sideFiles) await copyFile(join(thinking.dir, file), join(work, file));
      await writeFile(join(work, RECIPE_FILE), `${JSON.stringify(recipe, null, 2)}\n`);
      await writeFile(join(work, 'README.md'), modelCard(recipe, notes));
    },
    onProgress: (p) => options.onProgress?.({ phase: 'write', ...p }),
    signal: options.signal,
    overwrite: options.overwrite ?? false,
    assertReplaceable: assertPreviousExport,
  });
  return { ...written, recipe, notes, merge };
}

/** One note per edited layer: its heads' α (the QP's result, box-clipped). */
function alphaNotes(merge: RainMerge): string[] {
  const heads = merge.alpha.length / Math.max(1, merge.layers.length);
  return merge.layers.map((layer, i) => `RAIN α of layer ${layer}, heads 0…${heads - 1}: ${Array.from(merge.alpha.subarray(i * heads, (i + 1) * heads), (a) => a.toFixed(4)).join(', ')}`);
}
