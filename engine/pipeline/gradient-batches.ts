/**
 * How the gradients stage cuts each calibration set into batches (its jobs), and the order they
 * go out to the workers.
 *
 *   batchTokenCap(sets) → the most tokens a batch may hold: 1/BALANCE_PARTS of all sets' tokens
 *   splitIntoBatches(sequences, maxSequences, maxTokens) → consecutive runs of one set's sequences
 *   longestFirst(lists, size) → every list's items, the largest next item first, each list in order
 *
 * A batch is one model pass, and the stage adds the batches of a set in batch order, so the split
 * decides the stored sums' rounding: it depends on the sequences and the settings only, never on
 * the worker count (the stage key names both knobs, gradients-stage.ts). Batches of at most
 * batchSequences sequences alone left the workers idle: the 28-layer pair's two sets (2 chats
 * each, ≈125 and ≈468 tokens) were two jobs, one four times the other. A cap of 1/8 of all
 * tokens gives every set several batches whenever the calibration is small enough for that to
 * matter (a 64 × 256-token set is cut by batchSequences as before), so 2–4 workers can be kept
 * equally busy. The cost of a batch beyond its tokens is a pass's fixed work — every decoder layer
 * read and widened twice, one more generation of the layer files folded on the main thread — not
 * matmul efficiency: the runtime already runs every sequence's layers on its own
 * (layer-backward.ts), so a smaller batch multiplies the same matrices.
 */
import type { LossSequence } from '../model/layer-grads.ts';

/** A batch holds at most this share (1/BALANCE_PARTS) of all sets' tokens, unless one sequence is more. */
export const BALANCE_PARTS = 8;

/** Tokens of these sequences: what a pass's work grows with. */
export function batchTokens(sequences: readonly LossSequence[]): number {
  return sequences.reduce((sum, s) => sum + s.ids.length, 0);
}

export function batchTokenCap(sets: readonly (readonly LossSequence[])[]): number {
  return Math.max(1, Math.ceil(batchTokens(sets.flat()) / BALANCE_PARTS));
}

/**
 * Consecutive sequences, a new batch whenever the next would pass `maxSequences` sequences or
 * `maxTokens` tokens; a sequence longer than `maxTokens` is a batch of its own.
 */
export function splitIntoBatches<S extends LossSequence>(sequences: readonly S[], maxSequences: number, maxTokens: number): S[][] {
  const batches: S[][] = [];
  let batch: S[] = [];
  let held = 0;
  for (const sequence of sequences) {
    const length = sequence.ids.length;
    if (batch.length > 0 && (batch.length === maxSequences || held + length > maxTokens)) {
      batches.push(batch);
      batch = [];
      held = 0;
    }
    batch.push(sequence);
    held += length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * The items of all lists, taking next the largest `size` among the lists' next items (ties: the
 * earlier list): the longest jobs start first while each set's batches still go out in batch
 * order, which the ordered fold needs (gradient-fold.ts: a batch waits for the one before it, so
 * one handed out before its predecessor could hold a worker that the predecessor needs).
 */
export function longestFirst<T>(lists: readonly (readonly T[])[], size: (item: T) => number): T[] {
  const taken = lists.map(() => 0);
  const count = lists.reduce((sum, list) => sum + list.length, 0);
  const out: T[] = [];
  while (out.length < count) {
    let pick = 0;
    let largest = -Infinity;
    lists.forEach((list, i) => {
      const item = list[taken[i] ?? 0];
      if (item !== undefined && size(item) > largest) [pick, largest] = [i, size(item)];
    });
    out.push(lists[pick]?.[taken[pick] ?? 0] as T);
    taken[pick] = (taken[pick] ?? 0) + 1;
  }
  return out;
}
