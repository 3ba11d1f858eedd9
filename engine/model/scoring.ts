/**
 * Forward-only evaluation: logits of one sequence, and the masked loss of a batch (what
 * `crane score` reports). Layer-major over the batch, one layer's weights in memory at a time.
 */
import * as tf from '@tensorflow/tfjs-core';
import { embedSequences } from './embedding-rows.ts';
import { forwardLayers, type ModelContext } from './forward.ts';
import { disposeHead, gatherRows, headLogits, readHead, targetRows } from './head.ts';
import { headLosses } from './head-loss.ts';
import { planMemory } from './memory-plan.ts';
import type { LossSequence } from './layer-grads.ts';

export interface Logits {
  /** Row-major [rows, vocab]. */
  readonly values: Float32Array;
  readonly rows: number;
  readonly vocab: number;
}

/** Final hidden states of each sequence, [T·hidden] each. */
export async function finalHidden(ctx: ModelContext, sequences: readonly ArrayLike<number>[]): Promise<Float32Array[]> {
  const hidden = await embedSequences(ctx, sequences);
  await forwardLayers(ctx, hidden);
  return hidden;
}

/** Logits at every position of `ids` (or only at `positions`). */
export async function forwardLogits(ctx: ModelContext, ids: ArrayLike<number>, positions?: readonly number[]): Promise<Logits> {
  const [hidden] = (await finalHidden(ctx, [ids])) as [Float32Array];
  const rows = positions ?? Array.from({ length: ids.length }, (_, i) => i);
  const head = await readHead(ctx);
  try {
    const h = tf.tensor2d(gatherRows(hidden, rows, ctx.spec.hiddenSize), [rows.length, ctx.spec.hiddenSize]);
    const values = headLogits(ctx.spec, head, h, planMemory(ctx.spec).headRows);
    h.dispose();
    return { values, rows: rows.length, vocab: ctx.spec.vocabSize };
  } finally {
    disposeHead(head);
  }
}

export interface SequenceScore {
  /** Mean CE over the target tokens (NaN when there are none). */
  readonly loss: number;
  readonly targets: number;
}

/** Per-sequence masked loss, no gradients; target rows go through the head `chunkRows` at a time (default: the memory plan's). */
export async function sequenceLosses(ctx: ModelContext, batch: readonly LossSequence[], chunkRows = planMemory(ctx.spec).headRows): Promise<SequenceScore[]> {
  const hidden = await finalHidden(ctx, batch.map((s) => s.ids));
  const sequences = batch.map((s, i) => ({ hidden: hidden[i] as Float32Array, ...targetRows(s.ids, s.targets) }));
  const head = await readHead(ctx, { onDemand: true });
  try {
    const losses = await headLosses(ctx.spec, head, sequences, { chunkRows });
    return sequences.map((s, i) => ({ loss: losses[i] as number, targets: s.rows.length }));
  } finally {
    disposeHead(head);
  }
}
