/**
 * How much tfjs memory (on wasm: the module's heap, 32-bit, 4 GiB at most) the runtime may use,
 * and the chunk sizes that follow from it. Weights of one decoder layer and its gradients are not
 * chunked; what scales with vocab × rows, keys × queries or tokens × intermediate is:
 *
 *   head       a quarter of the budget: per vocab id, the uploaded rows, XNNPACK's packed copy
 *              of them (dlogits · W) and one spare row's worth, and [headRows] logits, gradient and product;
 *   attention  an eighth: per query row and KV head, `group` rows of scores over every key,
 *              about six such matrices alive at once in the backward (P, dP, dS and transposes);
 *   MLP        an eighth: per token row, about sixteen [intermediate] rows alive at once in a
 *              chunk's backward (g, u, their sigmoid and products, dh, dG, dU, transposes and
 *              XNNPACK's packed copies of them: chunked-mlp.ts).
 *
 * Outside tfjs, in JS memory, a backward keeps every (pass, layer)'s input (stashedActivationBytes)
 * and a looped model keeps (passes − 1) passes of layer gradients until pass 0 reaches each layer
 * (loopPartBytes): up to passPartHoldBytes of them in memory, the rest spilled to disk
 * (loop-part-stash.ts). worker-count.ts adds these up per gradient worker.
 *
 * The budget is process-wide (one engine per CLI run or studio process): `--memory-budget` on
 * analyze, score and verify sets it before any model is loaded. On wasm it is capped by the heap
 * itself: a budget over ~3.5 GiB only makes chunks larger, it cannot make room for more.
 */
import type { ModelSpec } from './config.ts';
import { passCount } from './loop-config.ts';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
const F32 = 4;

/** The default budget: leaves a quarter of wasm's 4 GiB heap for the module and fragmentation. */
export const DEFAULT_MEMORY_BUDGET = 3 * GiB;
const MIN_MEMORY_BUDGET = 256 * MiB;
/** Target rows per head block: 256 × 2,560 rows keep the product near the matmul's best rate. */
const HEAD_ROWS = 256;
/** Live [group·queries, keys] matrices in the attention backward. */
const ATTENTION_MATRICES = 6;
/** Live [rows, intermediate] matrices in a chunk of the MLP backward. */
const MLP_MATRICES = 16;
/** Query and MLP row chunks are multiples of this (whole SIMD tiles) unless the sequence is shorter. */
const ROW_ALIGN = 16;

export interface MemoryPlan {
  readonly budgetBytes: number;
  /** Vocab ids per lm_head chunk. */
  readonly vocabChunk: number;
  /** Target rows pushed through the head at once. */
  readonly headRows: number;
  /** Bytes one attention chunk may hold (see attentionQueryChunk). */
  readonly attentionBytes: number;
  /** Bytes one MLP row chunk may hold (see mlpRowChunk). */
  readonly mlpBytes: number;
}

/** Carries the budget into gradient worker threads, which copy the environment when they start. */
export const MEMORY_BUDGET_ENV = 'CRANE_MEMORY_BUDGET';

let processBudget = budgetFromEnvironment();

/** Sets the budget every model loaded from now on plans with, here and in workers started later (the CLI's --memory-budget). */
export function setMemoryBudget(bytes: number): void {
  processBudget = checkBudget(bytes);
  process.env[MEMORY_BUDGET_ENV] = String(bytes);
}

export function memoryBudget(): number {
  return processBudget;
}

export function planMemory(spec: Pick<ModelSpec, 'hiddenSize' | 'vocabSize'>, budgetBytes = processBudget): MemoryPlan {
  checkBudget(budgetBytes);
  const perVocabId = (3 * spec.hiddenSize + 3 * HEAD_ROWS) * F32;
  const vocabChunk = Math.min(spec.vocabSize, Math.max(1024, Math.floor(budgetBytes / 4 / perVocabId / 1024) * 1024));
  return { budgetBytes, vocabChunk, headRows: HEAD_ROWS, attentionBytes: Math.floor(budgetBytes / 8), mlpBytes: Math.floor(budgetBytes / 8) };
}

/** Query rows per attention chunk for `queries` queries over `keys` keys, `group` query heads per KV head. */
export function attentionQueryChunk(plan: MemoryPlan, group: number, queries: number, keys: number): number {
  return alignedRows(Math.floor(plan.attentionBytes / (ATTENTION_MATRICES * group * keys * F32)), queries);
}

/** Token rows per chunk of the MLP (forward and recomputing backward) for `tokens` rows of width `intermediate`. */
export function mlpRowChunk(plan: MemoryPlan, intermediate: number, tokens: number): number {
  return alignedRows(Math.floor(plan.mlpBytes / (MLP_MATRICES * intermediate * F32)), tokens);
}

/**
 * Bytes one attention chunk holds at its peak (the backward's ATTENTION_MATRICES score matrices of
 * one KV head's `group` query heads, chunked-attention.ts): the whole [group·T, T] when it fits
 * the plan, else the planned query chunk's rows over every key.
 */
export function attentionChunkBytes(plan: MemoryPlan, group: number, tokens: number): number {
  return ATTENTION_MATRICES * group * attentionQueryChunk(plan, group, tokens, tokens) * tokens * F32;
}

/**
 * Bytes of the layer inputs a backward over `tokens` tokens keeps (layer-grads.ts forwardWithStash):
 * every (pass, layer)'s input, each pass's output before a norm between passes, and the final
 * hidden states — (layers + 1)·tokens·hidden for a model without a loop, about passes times that
 * for a looped one.
 */
export function stashedActivationBytes(spec: Pick<ModelSpec, 'numLayers' | 'hiddenSize' | 'loop'>, tokens: number): number {
  const passes = passCount(spec);
  const normInputs = spec.loop?.normBetweenPasses === true ? passes - 1 : 0;
  return (passes * spec.numLayers + normInputs + 1) * tokens * spec.hiddenSize * F32;
}

/** Bytes of layer gradients a looped model's backward keeps waiting for pass 0: (passes − 1) of every layer's; 0 without a loop. */
export function loopPartBytes(spec: Pick<ModelSpec, 'numLayers' | 'loop'>, layerParams: number): number {
  return (passCount(spec) - 1) * spec.numLayers * layerParams * F32;
}

/**
 * How much of loopPartBytes stays in memory; the rest goes to disk. The budget itself: a
 * looped backward may then use about twice the budget (tfjs plus the waiting parts), and a
 * Nanbeige4.2-3B's 15.6 GB of parts cost a 3 GiB budget about 12.6 GB of temporary disk.
 */
export function passPartHoldBytes(budgetBytes = processBudget): number {
  return budgetBytes;
}

/** All `total` rows when `fit` covers them, else `fit` rounded down to whole tiles (one tile at least). */
function alignedRows(fit: number, total: number): number {
  if (fit >= total) return total;
  return Math.max(ROW_ALIGN, Math.floor(fit / ROW_ALIGN) * ROW_ALIGN);
}

function budgetFromEnvironment(): number {
  const text = process.env[MEMORY_BUDGET_ENV];
  return text === undefined || text === '' ? DEFAULT_MEMORY_BUDGET : checkBudget(Number(text));
}

function checkBudget(bytes: number): number {
  if (!(Number.isFinite(bytes) && bytes >= MIN_MEMORY_BUDGET)) throw new RangeError(`the memory budget must be at least 256MiB, got ${bytes} bytes`);
  return bytes;
}
