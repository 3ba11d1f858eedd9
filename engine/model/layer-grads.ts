/**
 * lossAndLayerGrads: the masked causal-LM loss of a batch and its gradient with respect to every
 * decoder-layer parameter, computed layer by layer.
 *
 *   1. forward, layer-major, keeping only each layer's input hidden states (JS memory);
 *   2. head: loss and d loss / d final hidden (only rows that predict a target);
 *   3. for l = L−1 … 0: read layer l from disk, recompute it per sequence under tf.grads with the
 *      incoming gradient, sum its parameter gradients over sequences, hand them to `onLayer`
 *      (full checkpoint names → Float32Array, PyTorch layout), drop them and layer l's inputs.
 *
 * Peak tfjs memory ≈ one layer's parameters + gradients + one sequence's activations; JS memory
 * holds (L+1)·tokens·hidden floats of stashed layer inputs.
 *
 * Objective: mean over sequences of each sequence's mean target-token CE. With
 * `sequenceCount` the sum is divided by that instead of batch.length, so a caller that splits
 * N sequences into batches can pass N and simply add the gradients of all batches.
 *
 * Non-layer gradients (`headGrads: true`) are reported last, with layer index −1
 * (HEAD_GRADS_LAYER): model.norm.weight, and lm_head.weight — or, when tied,
 * model.embed_tokens.weight as the sum of the lm_head and embedding-lookup gradients (an untied
 * model also gets model.embed_tokens.weight). These are vocab-sized: only ask when needed.
 */
import * as tf from '@tensorflow/tfjs-core';
import { RopeCache, embedTokens, forwardLayers, type ModelContext } from './forward.ts';
import { backwardLayer } from './layer-backward.ts';
import { accumulate, disposeHead, headLossAndGrads, readHead, targetRows } from './head.ts';
import { EMBED_NAME, FINAL_NORM_NAME, LM_HEAD_NAME } from './weights.ts';

/** One training sequence: token ids and which of them are loss targets (t ≥ 1; default all). */
export interface LossSequence {
  readonly ids: ArrayLike<number>;
  /** targets[t] truthy: token t is predicted from position t−1 and counted. targets[0] is ignored. */
  readonly targets?: ArrayLike<number | boolean>;
}

export type LayerGradsCallback = (layer: number, grads: Map<string, Float32Array>) => void | Promise<void>;

export const HEAD_GRADS_LAYER = -1;

export interface LayerGradsOptions {
  /** Divide the summed per-sequence losses by this (default batch.length). */
  readonly sequenceCount?: number;
  /** Also report model.norm / lm_head / embedding gradients as layer −1 (default false). */
  readonly headGrads?: boolean;
  /** Rows pushed through the vocab projection at once (default 128). */
  readonly headChunkRows?: number;
}

export interface LossResult {
  /** The objective: Σ sequence losses / sequenceCount. */
  readonly loss: number;
  /** Per sequence: mean CE over its targets. */
  readonly sequenceLosses: readonly number[];
  readonly targetCounts: readonly number[];
}

export async function lossAndLayerGrads(ctx: ModelContext, batch: readonly LossSequence[], onLayer: LayerGradsCallback, options: LayerGradsOptions = {}): Promise<LossResult> {
  const { spec } = ctx;
  const width = spec.hiddenSize;
  const seqs = batch.map((s, i) => {
    const t = targetRows(s.ids, s.targets);
    if (t.rows.length === 0) throw new RangeError(`sequence ${i} has no loss targets`);
    return t;
  });
  const scale = 1 / (options.sequenceCount ?? batch.length);
  const embedding = await ctx.embedding();
  const hidden = batch.map((s) => embedTokens(embedding, s.ids, width));
  const stash: (readonly Float32Array[] | undefined)[] = [];
  await forwardLayers(ctx, hidden, { keep: (layer, inputs) => (stash[layer] = inputs) });

  const head = await readHead(ctx, options.headGrads === true);
  let grads: Float32Array[];
  const sequenceLosses: number[] = [];
  let dNorm: tf.Tensor1D | undefined;
  let dLmHead: tf.Tensor2D | undefined;
  try {
    grads = hidden.map((h, s) => {
      const r = headLossAndGrads(spec, head, h, seqs[s] as (typeof seqs)[number], { scale, chunkRows: options.headChunkRows ?? 128, weightGrads: options.headGrads === true });
      sequenceLosses.push(r.loss);
      if (r.dNorm !== undefined) dNorm = accumulate(dNorm, r.dNorm);
      if (r.dLmHead !== undefined) dLmHead = accumulate(dLmHead, r.dLmHead);
      return r.dHidden;
    });
  } finally {
    disposeHead(head);
  }

  const ropes = new RopeCache(spec);
  try {
    for (let layer = spec.numLayers - 1; layer >= 0; layer--) {
      const inputs = stash[layer] as readonly Float32Array[];
      stash[layer] = undefined;
      const layerGrads = await backwardLayer(ctx, layer, inputs, grads, ropes);
      grads = layerGrads.dInputs;
      await onLayer(layer, layerGrads.grads);
    }
  } finally {
    ropes.dispose();
  }
  if (options.headGrads === true) await onLayer(HEAD_GRADS_LAYER, headGradMap(ctx, embedding, batch, grads, dNorm, dLmHead));
  else tf.dispose([dNorm, dLmHead].filter((t) => t !== undefined));
  const loss = sequenceLosses.reduce((a, b) => a + b, 0) * scale;
  return { loss, sequenceLosses, targetCounts: seqs.map((s) => s.rows.length) };
}

/** model.norm, lm_head and embedding gradients (embedding = lookup scatter [+ lm_head if tied]). */
function headGradMap(ctx: ModelContext, embedding: Float32Array, batch: readonly LossSequence[], dEmbedOut: readonly Float32Array[], dNorm?: tf.Tensor1D, dLmHead?: tf.Tensor2D): Map<string, Float32Array> {
  const width = ctx.spec.hiddenSize;
  const out = new Map<string, Float32Array>();
  // dLmHead is in compute layout [hidden, vocab]; the checkpoint stores [vocab, hidden].
  const dHead = dLmHead === undefined ? new Float32Array(embedding.length) : transposedValues(dLmHead);
  if (dNorm !== undefined) out.set(FINAL_NORM_NAME, Float32Array.from(dNorm.dataSync()));
  tf.dispose([dNorm, dLmHead].filter((t) => t !== undefined));
  const dEmbed = ctx.spec.tiedEmbeddings ? dHead : new Float32Array(embedding.length);
  batch.forEach((s, i) => {
    const g = dEmbedOut[i] as Float32Array;
    for (let t = 0; t < s.ids.length; t++) {
      const row = (s.ids[t] as number) * width;
      for (let j = 0; j < width; j++) dEmbed[row + j] = (dEmbed[row + j] as number) + (g[t * width + j] as number);
    }
  });
  if (!ctx.spec.tiedEmbeddings) out.set(LM_HEAD_NAME, dHead);
  out.set(EMBED_NAME, dEmbed);
  return out;
}

function transposedValues(t: tf.Tensor2D): Float32Array {
  const transposed = tf.transpose(t);
  const values = Float32Array.from(transposed.dataSync());
  transposed.dispose();
  return values;
}
