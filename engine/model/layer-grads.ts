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
import { RopeCache, embedTokens, forwardLayers, type ModelContext } from './forward.ts';
import { backwardLayer } from './layer-backward.ts';
import { disposeHead, readHead, targetRows } from './head.ts';
import { headLossAndGrads, type HeadGrads } from './head-loss.ts';
import { planMemory } from './memory-plan.ts';
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
  /** Rows pushed through the vocab projection at once (default: the memory plan's, memory-plan.ts). */
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
  const seqs = batch.map((s, i) => {
    const t = targetRows(s.ids, s.targets);
    if (t.rows.length === 0) throw new RangeError(`sequence ${i} has no loss targets`);
    return t;
  });
  const scale = 1 / (options.sequenceCount ?? batch.length);
  const { embedding, hidden, stash } = await forwardWithStash(ctx, batch);

  const head = await readHead(ctx);
  let result: HeadGrads;
  try {
    const sequences = hidden.map((h, i) => ({ hidden: h, ...(seqs[i] as (typeof seqs)[number]) }));
    result = headLossAndGrads(spec, head, sequences, { scale, chunkRows: options.headChunkRows ?? planMemory(spec).headRows, weightGrads: options.headGrads === true });
  } finally {
    disposeHead(head);
  }

  const dEmbedOut = await backwardLayers(ctx, stash, result.dHidden, onLayer);
  if (options.headGrads === true) await onLayer(HEAD_GRADS_LAYER, headGradMap(ctx, embedding, batch, dEmbedOut, result));
  const { sequenceLosses } = result;
  const loss = sequenceLosses.reduce((a, b) => a + b, 0) * scale;
  return { loss, sequenceLosses, targetCounts: seqs.map((s) => s.rows.length) };
}

/**
 * Walks down from d objective / d final hidden (`dFinal`, one [T·hidden] per sequence) through
 * every layer, given each layer's stashed inputs (released as it goes); returns d / d embedding
 * output.
 */
async function backwardLayers(ctx: ModelContext, stash: LayerInputs, dFinal: Float32Array[], onLayer: LayerGradsCallback): Promise<Float32Array[]> {
  let grads = dFinal;
  const ropes = new RopeCache(ctx.spec);
  try {
    for (let layer = ctx.spec.numLayers - 1; layer >= 0; layer--) {
      const inputs = stash[layer] as readonly Float32Array[];
      stash[layer] = undefined;
      const layerGrads = await backwardLayer(ctx, layer, inputs, grads, ropes);
      grads = layerGrads.dInputs;
      await onLayer(layer, layerGrads.grads);
    }
  } finally {
    ropes.dispose();
  }
  return grads;
}

/**
 * The decoder-layer gradients of any objective whose gradient at the final hidden states is
 * `dFinal` (one [T·hidden] per sequence of `batch`): the layer-wise backward of
 * lossAndLayerGrads with the head left out (measurement tools feed it a reference head gradient).
 */
export async function layerGradsFromHidden(ctx: ModelContext, batch: readonly LossSequence[], dFinal: Float32Array[], onLayer: LayerGradsCallback): Promise<void> {
  await backwardLayers(ctx, (await forwardWithStash(ctx, batch)).stash, dFinal, onLayer);
}

type LayerInputs = (readonly Float32Array[] | undefined)[];

/** Final hidden states of the batch, and every layer's inputs kept for the recompute. */
async function forwardWithStash(ctx: ModelContext, batch: readonly LossSequence[]): Promise<{ embedding: Float32Array; hidden: Float32Array[]; stash: LayerInputs }> {
  const embedding = await ctx.embedding();
  const hidden = batch.map((s) => embedTokens(embedding, s.ids, ctx.spec.hiddenSize));
  const stash: LayerInputs = [];
  await forwardLayers(ctx, hidden, { keep: (layer, inputs) => (stash[layer] = inputs) });
  return { embedding, hidden, stash };
}

/** model.norm, lm_head and embedding gradients (embedding = lookup scatter [+ lm_head if tied]). */
function headGradMap(ctx: ModelContext, embedding: Float32Array, batch: readonly LossSequence[], dEmbedOut: readonly Float32Array[], head: HeadGrads): Map<string, Float32Array> {
  const width = ctx.spec.hiddenSize;
  const out = new Map<string, Float32Array>();
  const dHead = head.dLmHead ?? new Float32Array(embedding.length);
  if (head.dNorm !== undefined) out.set(FINAL_NORM_NAME, head.dNorm);
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
