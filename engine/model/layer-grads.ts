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
 * A caller that only dots them with known directions asks for `headDirections` instead: layer −1
 * then brings model.norm.weight alone, and the result's headDots each direction's ⟨∇L, Δ⟩,
 * taken in the head's one pass and from the lookup's rows (head-directions.ts) — no vocab-sized
 * array, no second pass over the head.
 *
 * A looped model (loop-config.ts) runs the layers once per pass: lossAndPassGrads reports every
 * (pass, layer) part — the last pass first, each pass from its last layer down, then the head
 * parts of every pass (model.norm after pass p; the embedding lookup in pass 0; lm_head, or the
 * tied embedding's lm_head use, and the last norm in the last pass) — and lossAndLayerGrads
 * their sums over passes (loop-grad-sums.ts). A model without a loop has one pass, 0.
 */
import { embedSequences } from './embedding-rows.ts';
import { RopeCache, forwardLayers, type ModelContext } from './forward.ts';
import { backwardLayer } from './layer-backward.ts';
import { disposeHead, readHead, targetRows } from './head.ts';
import { checkDirection, directionRows, dot64, type HeadDirections, type HeadDots } from './head-directions.ts';
import { headLossAndGrads, type HeadGradOptions, type HeadGrads, type HeadSequence } from './head-loss.ts';
import { passCount } from './loop-config.ts';
import { sumOverPasses, type PassGradsCallback } from './loop-grad-sums.ts';
import { betweenPassesBackward } from './loop-passes.ts';
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
  /**
   * Directions on the embedding and lm_head whose dots with their gradients go into headDots;
   * model.norm's gradient is reported as layer −1. Called when the head pass begins, and let go
   * of after it: a whole lm_head Δ is vocab × hidden and need not live through the backward.
   */
  readonly headDirections?: () => Promise<HeadDirections>;
  /**
   * The layer gradients handed to onLayer are lent: valid until its promise settles, then
   * overwritten with the next layer's (one array per parameter key for the whole call, not fresh
   * pages per layer: a curvature pass only dots them). A looped model's parts wait across passes
   * (loop-part-stash.ts), so it gets fresh arrays whatever this says.
   */
  readonly lendGrads?: boolean;
}

export interface LossResult {
  /** The objective: Σ sequence losses / sequenceCount. */
  readonly loss: number;
  /** Per sequence: mean CE over its targets. */
  readonly sequenceLosses: readonly number[];
  readonly targetCounts: readonly number[];
  /** With options.headDirections: ⟨∇L, Δ⟩ of each direction given. */
  readonly headDots?: HeadDots;
}

export async function lossAndLayerGrads(ctx: ModelContext, batch: readonly LossSequence[], onLayer: LayerGradsCallback, options: LayerGradsOptions = {}): Promise<LossResult> {
  return lossAndPassGrads(ctx, batch, sumOverPasses(passCount(ctx.spec), onLayer), options);
}

/** lossAndLayerGrads with each weight's gradient in one part per pass (keyed by pass, layer, tensor). */
export async function lossAndPassGrads(ctx: ModelContext, batch: readonly LossSequence[], onPart: PassGradsCallback, options: LayerGradsOptions = {}): Promise<LossResult> {
  try {
    return await passGrads(ctx, batch, onPart, options);
  } finally {
    // A looped model's parts wait for their layer's pass 0, some of them on disk (loop-part-stash.ts).
    await onPart.release?.();
  }
}

async function passGrads(ctx: ModelContext, batch: readonly LossSequence[], onPart: PassGradsCallback, options: LayerGradsOptions): Promise<LossResult> {
  const { spec } = ctx;
  const seqs = batch.map((s, i) => {
    const t = targetRows(s.ids, s.targets);
    if (t.rows.length === 0) throw new RangeError(`sequence ${i} has no loss targets`);
    return t;
  });
  const scale = 1 / (options.sequenceCount ?? batch.length);
  const { hidden, stash } = await forwardWithStash(ctx, batch);
  const headGrads = options.headGrads === true;
  const { grads: result, along } = await headPass(ctx, batch, hidden.map((h, i) => ({ hidden: h, ...(seqs[i] as (typeof seqs)[number]) })), { scale, chunkRows: options.headChunkRows ?? planMemory(spec).headRows, lmHeadGrad: headGrads }, options.headDirections);

  const lent = options.lendGrads === true && passCount(spec) === 1 ? new Map<string, Float32Array>() : undefined;
  const { dEmbedOut, dNorms } = await backwardLayers(ctx, stash, result.dHidden, onPart, lent);
  if (headGrads || along !== undefined) {
    const parts = normParts(passCount(spec), result.dNorm, dNorms);
    if (headGrads) addVocabGrads(ctx, parts, batch, dEmbedOut, result);
    for (let pass = parts.length - 1; pass >= 0; pass--) await onPart(pass, HEAD_GRADS_LAYER, parts[pass] as Map<string, Float32Array>);
  }
  const { sequenceLosses } = result;
  const loss = sequenceLosses.reduce((a, b) => a + b, 0) * scale;
  return { loss, sequenceLosses, targetCounts: seqs.map((s) => s.rows.length), ...(along === undefined ? {} : { headDots: along.dots(dEmbedOut) }) };
}

/** What the head pass keeps of HeadDirections: the dots so far, and the lookup's part still to come. */
interface HeadAlong {
  /** The finished dots, given d objective / d embedding output per sequence. */
  dots(dEmbedOut: readonly Float32Array[]): HeadDots;
}

/**
 * The head's loss and gradients in a frame of its own. An untied lm_head from a source that reads
 * rows is read a chunk at a time as the head uses it (readHead onDemand: no vocab-sized array);
 * a head read whole (the tied embedding, or a source without row reads: vocab × hidden float32,
 * 622 MB at Qwen3-0.6B shapes) is garbage once this returns, not kept alive through the whole
 * backward by the caller's frame.
 */
async function headPass(ctx: ModelContext, batch: readonly LossSequence[], sequences: readonly HeadSequence[], options: HeadGradOptions, directions?: () => Promise<HeadDirections>): Promise<{ grads: HeadGrads; along?: HeadAlong }> {
  const head = await readHead(ctx, { onDemand: true });
  try {
    if (directions === undefined) return { grads: await headLossAndGrads(ctx.spec, head, sequences, options) };
    const given = await directions();
    const { tiedEmbeddings: tied, vocabSize, hiddenSize } = ctx.spec;
    given.embedding.forEach((d) => checkDirection(d, vocabSize, hiddenSize, EMBED_NAME));
    given.lmHead.forEach((d) => checkDirection(d, vocabSize, hiddenSize, LM_HEAD_NAME));
    const grads = await headLossAndGrads(ctx.spec, head, sequences, { ...options, directions: tied ? given.embedding : given.lmHead });
    return { grads, along: await headAlong(ctx, batch, given, grads.directionDots) };
  } finally {
    disposeHead(head);
  }
}

/**
 * The head's dots (`headUse`: the lm_head's, or when tied the embedding's lm_head use) and, per
 * embedding direction, its rows at the batch's tokens — all the lookup's part needs of it once
 * the backward is done, so no Δ is kept.
 */
async function headAlong(ctx: ModelContext, batch: readonly LossSequence[], given: HeadDirections, headUse: readonly number[]): Promise<HeadAlong> {
  const width = ctx.spec.hiddenSize;
  const tied = ctx.spec.tiedEmbeddings;
  const lookups = await Promise.all(given.embedding.map((d) => Promise.all(batch.map((s) => directionRows(d, s.ids, width)))));
  const lmHead = tied ? given.lmHead.map(() => 0) : [...headUse];
  return {
    dots: (dEmbedOut) => ({
      embedding: lookups.map((rows, k) => rows.reduce((sum, r, i) => sum + dot64(r, dEmbedOut[i] as Float32Array), tied ? (headUse[k] as number) : 0)),
      lmHead,
    }),
  };
}

/**
 * Walks down from d objective / d final hidden (`dFinal`, one [T·hidden] per sequence) through
 * every pass and layer, given each (pass, layer)'s stashed inputs (released as it goes); returns
 * d / d embedding output and, per pass, the model.norm part of a norm after it (between passes).
 */
async function backwardLayers(ctx: ModelContext, stash: PassInputs, dFinal: Float32Array[], onPart: PassGradsCallback, lent?: Map<string, Float32Array>): Promise<{ dEmbedOut: Float32Array[]; dNorms: (Float32Array | undefined)[] }> {
  const { numLayers } = ctx.spec;
  let grads = dFinal;
  const dNorms: (Float32Array | undefined)[] = [];
  const ropes = new RopeCache(ctx.spec);
  try {
    for (let pass = passCount(ctx.spec) - 1; pass >= 0; pass--) {
      const inputs = stash[pass] as LayerInputs;
      const normInputs = inputs[numLayers];
      if (normInputs !== undefined) {
        const norm = await betweenPassesBackward(ctx, normInputs, grads);
        grads = norm.dInputs;
        dNorms[pass] = norm.dNorm;
      }
      for (let layer = numLayers - 1; layer >= 0; layer--) {
        const layerInputs = inputs[layer] as readonly Float32Array[];
        inputs[layer] = undefined;
        const layerGrads = await backwardLayer(ctx, layer, layerInputs, grads, ropes, lent);
        grads = layerGrads.dInputs;
        await onPart(pass, layer, layerGrads.grads);
      }
    }
  } finally {
    ropes.dispose();
  }
  return { dEmbedOut: grads, dNorms };
}

/**
 * The decoder-layer gradients of any objective whose gradient at the final hidden states is
 * `dFinal` (one [T·hidden] per sequence of `batch`): the layer-wise backward of
 * lossAndLayerGrads with the head left out (measurement tools feed it a reference head gradient).
 */
export async function layerGradsFromHidden(ctx: ModelContext, batch: readonly LossSequence[], dFinal: Float32Array[], onLayer: LayerGradsCallback): Promise<void> {
  const onPart = sumOverPasses(passCount(ctx.spec), onLayer);
  try {
    await backwardLayers(ctx, (await forwardWithStash(ctx, batch)).stash, dFinal, onPart);
  } finally {
    await onPart.release?.();
  }
}

/** Per layer, its inputs; at index numLayers, the pass's output before a norm between passes. */
type LayerInputs = (readonly Float32Array[] | undefined)[];
/** LayerInputs per pass. */
type PassInputs = LayerInputs[];

/**
 * Final hidden states of the batch, and every (pass, layer)'s inputs kept for the recompute. The
 * lookup reads the batch's embedding rows only where the source can (embedding-rows.ts): an
 * untied model's backward needs no other row of it (the curvature passes: one vocab-sized read
 * and widening less per pass, the same floats).
 */
async function forwardWithStash(ctx: ModelContext, batch: readonly LossSequence[]): Promise<{ hidden: Float32Array[]; stash: PassInputs }> {
  const hidden = await embedSequences(ctx, batch.map((s) => s.ids));
  const stash: PassInputs = [];
  await forwardLayers(ctx, hidden, { keep: (layer, inputs, pass) => ((stash[pass] ??= [])[layer] = inputs) });
  return { hidden, stash };
}

/**
 * model.norm's gradient, one map per pass: the head's in the last pass, the part from a norm
 * between passes (`dNorms`) in the pass before it.
 */
function normParts(passes: number, dNorm: Float32Array, dNorms: readonly (Float32Array | undefined)[]): Map<string, Float32Array>[] {
  const parts = Array.from({ length: passes }, (_, pass) => new Map<string, Float32Array>(dNorms[pass] === undefined ? [] : [[FINAL_NORM_NAME, dNorms[pass] as Float32Array]]));
  (parts[passes - 1] as Map<string, Float32Array>).set(FINAL_NORM_NAME, dNorm);
  return parts;
}

/**
 * lm_head and embedding gradients into the per-pass maps: the lookup scatter in pass 0, lm_head
 * (into the embedding when tied) in the last pass. One pass: everything in one map.
 */
function addVocabGrads(ctx: ModelContext, parts: Map<string, Float32Array>[], batch: readonly LossSequence[], dEmbedOut: readonly Float32Array[], head: HeadGrads): void {
  const width = ctx.spec.hiddenSize;
  const size = ctx.spec.vocabSize * width;
  const passes = parts.length;
  const out = parts[passes - 1] as Map<string, Float32Array>;
  const dHead = head.dLmHead ?? new Float32Array(size);
  const dEmbed = ctx.spec.tiedEmbeddings && passes === 1 ? dHead : new Float32Array(size);
  batch.forEach((s, i) => {
    const g = dEmbedOut[i] as Float32Array;
    for (let t = 0; t < s.ids.length; t++) {
      const row = (s.ids[t] as number) * width;
      for (let j = 0; j < width; j++) dEmbed[row + j] = (dEmbed[row + j] as number) + (g[t * width + j] as number);
    }
  });
  if (!ctx.spec.tiedEmbeddings) out.set(LM_HEAD_NAME, dHead);
  else if (passes > 1) out.set(EMBED_NAME, dHead);
  (parts[0] as Map<string, Float32Array>).set(EMBED_NAME, dEmbed);
}
