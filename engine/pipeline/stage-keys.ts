/**
 * The key of what the gradient sums feed: the gates stage, and the curvature stage and a looped
 * model's per-pass metrics after it — computable from a pipeline record alone, as preview, Verify
 * and the pass views check them without opening the checkpoints.
 *
 *   gradientSplit(settings) → { sequences, tokenShare }   how the gradients stage cuts the sets into batches
 *   sumsKey(inputs, settings) → { result, batches }        the result's key and that split
 *
 * The result key (the analysis manifest's, pipeline-folder.ts) holds what shapes the results
 * mathematically and leaves the split out; the split decides the stored sums' rounding, so every
 * stage that reads them holds it too — without it another --batch re-ran the gradients but kept
 * the gates and curvature computed from the old sums.
 */
import type { PipelineSettings } from './analysis-settings.ts';
import { BALANCE_PARTS } from './gradient-batches.ts';
import { resultKey, type InputHashes } from './pipeline-folder.ts';
import type { StageKey } from './stage-store.ts';

export function gradientSplit(settings: Pick<PipelineSettings, 'batchSequences'>): StageKey {
  return { sequences: settings.batchSequences, tokenShare: `1/${BALANCE_PARTS}` };
}

export function sumsKey(inputs: InputHashes, settings: PipelineSettings): StageKey {
  return { result: resultKey(inputs, settings), batches: gradientSplit(settings) };
}
