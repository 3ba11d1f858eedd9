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
import { z } from 'zod';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { parseJsonText } from '../io/json-file.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import { writeFileAtomic } from '../io/atomic-file.ts';

const tokenIndices = z.array(z.int().nonnegative());
const sequenceSchema = z.strictObject({
  set: z.enum(['reasoning', 'agent', 'format']),
  split: z.enum(['train', 'heldout']),
  source: z.string(),
  ids: tokenIndices,
  lossMask: z.array(z.int().min(0).max(1)).optional(),
  formatPositions: tokenIndices.optional(),
  target: z.enum(['given', 'decoded', 'decoded-ids']).optional(),
});

export type CalibrationSequence = z.infer<typeof sequenceSchema>;
export type CalibrationSetName = CalibrationSequence['set'];
export type Split = CalibrationSequence['split'];

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
  return text.split('\n').flatMap((line, i) => (line.trim() === '' ? [] : [parseJsonText(`${path}:${i + 1}`, line, sequenceSchema, 'a calibration sequence')]));
}

/** The sequences of one set and split, as the runtime's loss batches. */
export function lossBatch(sequences: readonly CalibrationSequence[], set: CalibrationSetName, split: Split): LossSequence[] {
  return sequences
    .filter((s) => s.set === set && s.split === split)
    .map((s) => ({ ids: s.ids, targets: s.lossMask ?? [] }));
}
