/**
 * An analysis' LEWIS importance files, measured on demand and kept with the analysis, as AIM's file
 * is: `DIR/stages/lewis/lewis-importance-{base,tuned}.json` — Instruct as the base model and
 * Thinking as the fine-tuned one, the reference's pairing for an Instruct/Thinking pair
 * (lewis.py: importance_instruct is the base, importance_thinking the target).
 *
 *   analysisLewisImportance(analysisDir, options) → { lewisBase, lewisTuned }   the two files' paths
 *
 * Optional: only LEWIS reads them, so Analyze does not pay two more model passes for every
 * project; the first LEWIS Verify, Export or `crane merge --method lewis --analysis DIR` measures
 * them (lewis-importance-measure.ts, on the analysis' D_R + D_A train prompts, each side with its
 * own weights) and later ones read the cache. The cache is a stage (stage-store.ts): its key is both
 * checkpoints' file hashes as the analysis recorded them and the SHA-256 of the calibration
 * sequences, so a re-analysis with other inputs or other prompts measures again. The measurement
 * is batch-invariant, so the batch size is not part of the key.
 */
import { join } from 'node:path';
import { sha256File } from '../analysis/provenance.ts';
import { writeLewisImportance } from '../crane/lewis-importance-file.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { aimPrompts } from './aim-importance.ts';
import { readSequences } from './calibration-sequences.ts';
import { measureLewisImportance } from './lewis-importance-measure.ts';
import { pipelinePaths, readPipelineRecord } from './pipeline-folder.ts';
import { throwIfCancelled } from './progress.ts';
import { markStageDone, openStage, stageStatus } from './stage-store.ts';

const STAGE = 'lewis';
const FILES = { lewisBase: 'lewis-importance-base.json', lewisTuned: 'lewis-importance-tuned.json' } as const;

export interface LewisImportancePaths {
  readonly lewisBase: string;
  readonly lewisTuned: string;
}

export interface LewisStageOptions {
  readonly signal?: AbortSignal;
  /** Fraction of both measurements done; not called when the files are cached. */
  readonly onProgress?: (fraction: number, text: string) => void;
}

export async function analysisLewisImportance(analysisDir: string, options: LewisStageOptions = {}): Promise<LewisImportancePaths> {
  const paths = pipelinePaths(analysisDir);
  const dir = join(analysisDir, 'stages', STAGE);
  const files = { lewisBase: join(dir, FILES.lewisBase), lewisTuned: join(dir, FILES.lewisTuned) };
  const record = await readPipelineRecord(analysisDir);
  const key = { instruct: record.inputs.instruct, thinking: record.inputs.thinking, sequences: await sha256File(paths.sequences) };
  if ((await stageStatus(dir, key)).state === 'cached') return files;
  const prompts = aimPrompts(await readSequences(paths.sequences));
  if (prompts.length === 0) throw new RangeError(`${paths.sequences}: no D_R or D_A train prompt to measure LEWIS importance on`);
  await openStage(dir, key);
  const sides = [['lewisBase', record.instruct, 'Instruct'], ['lewisTuned', record.thinking, 'Thinking']] as const;
  for (const [i, [role, checkpointDir, label]] of sides.entries()) {
    const checkpoint = await Checkpoint.open(checkpointDir);
    try {
      const importance = await measureLewisImportance(loadCausalLM(checkpoint), prompts, {
        batch: record.settings.batchSequences,
        onProgress: (fraction, text) => {
          throwIfCancelled(options.signal, 'LEWIS importance');
          options.onProgress?.((i + fraction) / sides.length, `${label}: ${text}`);
        },
      });
      await writeLewisImportance(files[role], importance);
    } finally {
      await checkpoint.close();
    }
  }
  await markStageDone(dir, key);
  return files;
}
