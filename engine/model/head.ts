/**
 * The output head (final RMSNorm + lm_head) and the masked causal-LM loss.
 *
 * Loss of one sequence = mean over its target tokens t (targets[t] true, t ≥ 1) of
 * CE(logits[t−1], ids[t]). Only the rows t−1 that predict a target are pushed through the head,
 * in chunks of `chunkRows`, so the [rows, vocab] logits never exceed one chunk.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ModelSpec } from './config.ts';
import type { ModelContext } from './forward.ts';
import { linear, rmsNorm } from './ops.ts';
import { FINAL_NORM_NAME, LM_HEAD_NAME, readChecked } from './weights.ts';

export interface HeadWeights {
  readonly norm: tf.Tensor1D;
  /** lm_head (the embedding when tied) in compute layout [hidden, vocab]. */
  readonly lmHead: tf.Tensor2D;
  /** The same as stored, [vocab, hidden]: kept only for the gradient pass (transpose-free dx). */
  readonly stored?: tf.Tensor2D;
}

/** Reads model.norm and lm_head (or the tied embedding) into tensors; dispose with disposeHead. */
export async function readHead(ctx: ModelContext, keepStored = false): Promise<HeadWeights> {
  const { spec, checkpoint } = ctx;
  const norm = await readChecked(checkpoint, FINAL_NORM_NAME, [spec.hiddenSize]);
  const values = spec.tiedEmbeddings ? await ctx.embedding() : await readChecked(checkpoint, LM_HEAD_NAME, [spec.vocabSize, spec.hiddenSize]);
  const stored = tf.tensor2d(values, [spec.vocabSize, spec.hiddenSize]);
  const lmHead = tf.transpose(stored);
  if (!keepStored) stored.dispose();
  return { norm: tf.tensor1d(norm), lmHead, ...(keepStored ? { stored } : {}) };
}

export function disposeHead(head: HeadWeights): void {
  tf.dispose([head.norm, head.lmHead, ...(head.stored === undefined ? [] : [head.stored])]);
}

/** Logits [rows, vocab] of hidden states [rows, hidden]. */
export function headLogits(spec: ModelSpec, head: HeadWeights, hidden: tf.Tensor2D): tf.Tensor2D {
  return linear(rmsNorm(hidden, head.norm, spec.rmsNormEps), head.lmHead, undefined, head.stored);
}

/** Rows (t−1) whose next token is a target, and those target ids. */
export function targetRows(ids: ArrayLike<number>, targets?: ArrayLike<number | boolean>): { rows: number[]; labels: number[] } {
  const rows: number[] = [];
  const labels: number[] = [];
  for (let t = 1; t < ids.length; t++) {
    if (targets === undefined || Boolean(targets[t])) {
      rows.push(t - 1);
      labels.push(ids[t] as number);
    }
  }
  return { rows, labels };
}

export function gatherRows(data: Float32Array, rows: readonly number[], width: number): Float32Array {
  const out = new Float32Array(rows.length * width);
  rows.forEach((r, i) => out.set(data.subarray(r * width, (r + 1) * width), i * width));
  return out;
}

/** Sum over rows of CE(logits_i, label_i), as a scalar tensor. */
export function crossEntropySum(logits: tf.Tensor2D, labels: readonly number[]): tf.Scalar {
  const oneHot = tf.oneHot(tf.tensor1d([...labels], 'int32'), logits.shape[1]);
  return tf.neg(tf.sum(tf.mul(oneHot, tf.logSoftmax(logits))));
}

export interface HeadGrads {
  /** Mean CE of the sequence over its targets. */
  readonly loss: number;
  /** d(scale·loss)/d(final hidden), [T·hidden] (zero on rows that predict nothing). */
  readonly dHidden: Float32Array;
  /** d/d model.norm.weight and d/d lm_head (compute layout [hidden, vocab]), when asked for. */
  readonly dNorm?: tf.Tensor1D;
  readonly dLmHead?: tf.Tensor2D;
}

/**
 * Loss of one sequence and the gradient of scale·loss with respect to its final hidden states
 * (and, with `weightGrads`, to the head weights). `hidden` is the last layer's output [T·hidden].
 */
export function headLossAndGrads(
  spec: ModelSpec,
  head: HeadWeights,
  hidden: Float32Array,
  seq: { rows: readonly number[]; labels: readonly number[] },
  options: { scale: number; chunkRows: number; weightGrads: boolean },
): HeadGrads {
  const width = spec.hiddenSize;
  const count = seq.rows.length;
  const dHidden = new Float32Array(hidden.length);
  let loss = 0;
  let dNorm: tf.Tensor1D | undefined;
  let dLmHead: tf.Tensor2D | undefined;
  for (let start = 0; start < count; start += options.chunkRows) {
    const rows = seq.rows.slice(start, start + options.chunkRows);
    const labels = seq.labels.slice(start, start + options.chunkRows);
    const step = tf.tidy(() => {
      const h = tf.tensor2d(gatherRows(hidden, rows, width), [rows.length, width]);
      const f = (x: tf.Tensor, norm: tf.Tensor, lm: tf.Tensor): tf.Scalar =>
        tf.div(crossEntropySum(headLogits(spec, { ...head, norm: norm as tf.Tensor1D, lmHead: lm as tf.Tensor2D }, x as tf.Tensor2D), labels), count);
      const args = options.weightGrads ? [h, head.norm, head.lmHead] : [h];
      const run = options.weightGrads ? f : (x: tf.Tensor) => f(x, head.norm, head.lmHead);
      const { value, grads } = tf.valueAndGrads(run as (...a: tf.Tensor[]) => tf.Scalar)(args, tf.scalar(options.scale));
      return { value: value.dataSync()[0] as number, grads };
    });
    loss += step.value;
    const [dh, dn, dl] = step.grads as [tf.Tensor2D, tf.Tensor1D?, tf.Tensor2D?];
    const dhValues = dh.dataSync();
    rows.forEach((r, i) => dHidden.set(dhValues.subarray(i * width, (i + 1) * width), r * width));
    dh.dispose();
    if (dn !== undefined && dl !== undefined) {
      dNorm = accumulate(dNorm, dn);
      dLmHead = accumulate(dLmHead, dl);
    }
  }
  return { loss, dHidden, ...(dNorm !== undefined ? { dNorm } : {}), ...(dLmHead !== undefined ? { dLmHead } : {}) };
}

/** sum ← sum + next, disposing the operands. */
export function accumulate<T extends tf.Tensor>(sum: T | undefined, next: T): T {
  if (sum === undefined) return next;
  const total = tf.add(sum, next) as T;
  tf.dispose([sum, next]);
  return total;
}
