/**
 * How many gradient worker threads to start when the user does not say (--workers).
 *
 *   defaultGradientWorkers(instruct, batches) → the count for this checkpoint, batches and machine
 *   gradientWorkShape(instruct, batches) → what the estimate reads of them
 *   gradientWorkerBytes(shape) → estimated peak bytes of one worker
 *   defaultWorkerCount(shape, machine) → cores, capped so every worker fits in free memory;
 *                                          1 for work too small to pay for starting threads
 *   decoderLayerParams(checkpoint) → each decoder layer's parameter count (lane-count.ts uses it too)
 *
 * A worker takes seconds to start (its module graph through tsx, a wasm backend), so work under
 * MIN_PARALLEL_FLOPS (forward + backward ≈ 6 FLOPs per parameter per token; a few seconds on
 * one core) stays in the calling thread.
 *
 * The estimate follows what one lossAndLayerGrads pass holds (layer-grads.ts): one decoder
 * layer four times (its weights — dense projections as stored, an MoE layer's router and experts
 * also transposed — its gradients and their running sums; counted as four to be safe), lm_head twice
 * (its chunks and one transposed chunk's worth of products, counted as a second copy to be
 * safe), the batch's stashed layer inputs (memory-plan.ts stashedActivationBytes: (L + 1) ·
 * tokens · hidden, about passes times that for a looped model), one attention chunk's score
 * matrices at the longest sequence (attentionChunkBytes: attention runs in query chunks the plan
 * sizes, not as heads · T² at once), all float32, and for a looped model the layer gradients that
 * wait for pass 0 — the part of loopPartBytes kept in memory (passPartHoldBytes; the rest is on
 * disk) plus one layer's sum and parts as they are handed on. A tied head (the embedding) is
 * shared between workers (shared-weights.ts), so its float32 copy is charged to the main thread,
 * not here; an untied embedding is looked up by rows and an untied lm_head read a chunk at a time
 * (model/head.ts onDemand), so no worker holds either whole. The two lm_head copies above stand
 * for a worker's uploaded chunks and products in its wasm heap, which never shrinks. It is an
 * estimate: a worker that still runs out of memory fails the stage with a GradientWorkerError,
 * and --workers overrides it.
 */
import { availableParallelism, freemem } from 'node:os';
import type { Checkpoint } from '../io/checkpoint.ts';
import { numel } from '../io/safetensors-header.ts';
import { parseModelSpec } from '../model/config.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import type { LoopSpec } from '../model/loop-config.ts';
import { attentionChunkBytes, loopPartBytes, passPartHoldBytes, planMemory, stashedActivationBytes } from '../model/memory-plan.ts';

export interface GradientWorkShape {
  readonly layers: number;
  readonly hidden: number;
  readonly vocab: number;
  readonly heads: number;
  readonly kvHeads: number;
  /** A looped model's passes (absent: one pass). */
  readonly loop?: LoopSpec;
  /** Parameters of the largest decoder layer. */
  readonly layerParams: number;
  /** Tokens of the largest batch, and of its longest sequence. */
  readonly batchTokens: number;
  readonly longestSequence: number;
  /** Tokens of all batches together. */
  readonly totalTokens: number;
}

export interface MachineResources {
  readonly cores: number;
  readonly freeBytes: number;
}

const FLOAT_BYTES = 4;
/** The JS engine, tfjs and the wasm module of one thread, before any tensor. */
const WORKER_BASE_BYTES = 128 * 2 ** 20;
export const MIN_PARALLEL_FLOPS = 2e10;

/** `budgetBytes`: the memory budget the worker plans with (it inherits the process's). */
export function gradientWorkerBytes(shape: GradientWorkShape, budgetBytes?: number): number {
  const spec = { numLayers: shape.layers, hiddenSize: shape.hidden, vocabSize: shape.vocab, ...(shape.loop === undefined ? {} : { loop: shape.loop }) };
  const plan = planMemory(spec, budgetBytes);
  const weights = (4 * shape.layerParams + 2 * shape.vocab * shape.hidden) * FLOAT_BYTES;
  const waiting = loopPartBytes(spec, shape.layerParams);
  // the layer handed on: its sum and each pass's part (pipeline/pass-gradients.ts keepPassParts)
  const handedOn = waiting > 0 ? ((shape.loop?.numLoops ?? 1) + 1) * shape.layerParams * FLOAT_BYTES : 0;
  return WORKER_BASE_BYTES
    + weights
    + stashedActivationBytes(spec, shape.batchTokens)
    + attentionChunkBytes(plan, shape.heads / shape.kvHeads, shape.longestSequence)
    + Math.min(waiting, passPartHoldBytes(plan.budgetBytes))
    + handedOn;
}

export function defaultWorkerCount(shape: GradientWorkShape, machine: MachineResources): number {
  const flops = 6 * (shape.layers * shape.layerParams + shape.vocab * shape.hidden) * shape.totalTokens;
  if (flops < MIN_PARALLEL_FLOPS) return 1;
  const fit = Math.floor(machine.freeBytes / gradientWorkerBytes(shape));
  return Math.max(1, Math.min(machine.cores, fit));
}

export function defaultGradientWorkers(instruct: Pick<Checkpoint, 'config' | 'dir' | 'tensors'>, batches: readonly (readonly LossSequence[])[], machine = machineResources()): number {
  return defaultWorkerCount(gradientWorkShape(instruct, batches), machine);
}

/** The shape of gradient work on these batches (the curvature stage's worker estimate starts from it too). */
export function gradientWorkShape(instruct: Pick<Checkpoint, 'config' | 'dir' | 'tensors'>, batches: readonly (readonly LossSequence[])[]): GradientWorkShape {
  const spec = parseModelSpec(instruct.config, instruct.dir);
  const layerParams = decoderLayerParams(instruct);
  const lengths = batches.map((batch) => batch.map((s) => s.ids.length));
  const batchTokens = lengths.map((l) => l.reduce((a, b) => a + b, 0));
  return {
    layers: spec.numLayers,
    hidden: spec.hiddenSize,
    vocab: spec.vocabSize,
    heads: spec.numHeads,
    kvHeads: spec.numKvHeads,
    ...(spec.loop === undefined ? {} : { loop: spec.loop }),
    layerParams: Math.max(0, ...layerParams),
    batchTokens: Math.max(0, ...batchTokens),
    longestSequence: Math.max(0, ...lengths.flat()),
    totalTokens: batchTokens.reduce((a, b) => a + b, 0),
  };
}

/** Parameters of each decoder layer (tensors named model.layers.N.*), in no particular order. */
export function decoderLayerParams(checkpoint: Pick<Checkpoint, 'tensors'>): number[] {
  const layerParams = new Map<string, number>();
  for (const [name, info] of checkpoint.tensors) {
    const layer = /^model\.layers\.(\d+)\./.exec(name)?.[1];
    if (layer !== undefined) layerParams.set(layer, (layerParams.get(layer) ?? 0) + numel(info.shape));
  }
  return [...layerParams.values()];
}

/** The CPUs this process may use and the memory free now (the cgroup limit when there is one). */
export function machineResources(): MachineResources {
  const limit = process.constrainedMemory();
  return { cores: availableParallelism(), freeBytes: limit > 0 ? Math.min(limit, freemem()) : freemem() };
}
