/**
 * SHA-256 of everything an analysis reads: both checkpoints' files (config, index, shards,
 * tokenizer and side files — engine/export's checkpointFiles, so the recipe and the analysis
 * agree on what "the same checkpoint" means) and the three calibration files.
 *
 *   hashInputs(instruct, thinking, calibration, signal?) → InputHashes
 *   flatInputs(hashes) → Record<string, string>    the analysis-store manifest's `inputs`
 */
import { sha256File } from '../analysis/provenance.ts';
import { checkpointFiles, hashFiles } from '../export/input-hashes.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import type { CalibrationSets } from '../protocol/settings-schemas.ts';
import type { InputHashes } from './pipeline-folder.ts';

export async function hashInputs(instruct: Checkpoint, thinking: Checkpoint, calibration: CalibrationSets, signal?: AbortSignal): Promise<InputHashes> {
  const checkpoint = async (c: Checkpoint) => hashFiles(c.dir, await checkpointFiles(c), { signal });
  return {
    instruct: await checkpoint(instruct),
    thinking: await checkpoint(thinking),
    reasoning: await sha256File(calibration.reasoning, signal),
    agent: await sha256File(calibration.agent, signal),
    format: await sha256File(calibration.format, signal),
  };
}

export function flatInputs(hashes: InputHashes): Record<string, string> {
  const out: Record<string, string> = { reasoning: hashes.reasoning, agent: hashes.agent, format: hashes.format };
  for (const side of ['instruct', 'thinking'] as const) {
    for (const [file, hash] of Object.entries(hashes[side])) out[`${side}/${file}`] = hash;
  }
  return out;
}
