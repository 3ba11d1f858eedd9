/**
 * The exact token sequences an analysis uses, as one JSONL file (also an open artifact of
 * `crane analyze --export`): one line per sequence.
 *
 *   { set, split, source, ids, lossMask? , formatPositions?, target? }
 *
 * - set: reasoning (D_R), agent (D_A) or format (D_F).
 * - split: train (gradients) or heldout (verify only). D_F is always train.
 * - lossMask (D_R, D_A): 0/1 per token, 1 on the generated assistant tokens (end of turn included).
 * - formatPositions (D_F): ascending token indices the GSP activations are captured at.
 * - target (D_R, D_A): 'given' in the file, 'decoded' by the pipeline (re-rendered with the
 *   template), or 'decoded-ids' (the generated ids as they are; see targets-stage.ts).
 */
import { readFile } from 'node:fs/promises';
import { CheckpointError } from '../io/checkpoint-error.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import { writeFileAtomic } from './stage-store.ts';

export type CalibrationSetName = 'reasoning' | 'agent' | 'format';
export type Split = 'train' | 'heldout';

export interface CalibrationSequence {
  readonly set: CalibrationSetName;
  readonly split: Split;
  readonly source: string;
  readonly ids: readonly number[];
  readonly lossMask?: readonly number[];
  readonly formatPositions?: readonly number[];
  readonly target?: 'given' | 'decoded' | 'decoded-ids';
}

export async function writeSequences(path: string, sequences: readonly CalibrationSequence[]): Promise<void> {
  await writeFileAtomic(path, sequences.map((s) => `${JSON.stringify(s)}\n`).join(''));
}

export async function readSequences(path: string): Promise<CalibrationSequence[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new CheckpointError('not-found', path, 'calibration sequences missing: run `crane analyze` first');
  }
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as CalibrationSequence);
}

/** The sequences of one set and split, as the runtime's loss batches. */
export function lossBatch(sequences: readonly CalibrationSequence[], set: CalibrationSetName, split: Split): LossSequence[] {
  return sequences
    .filter((s) => s.set === set && s.split === split)
    .map((s) => ({ ids: s.ids, targets: s.lossMask ?? [] }));
}
