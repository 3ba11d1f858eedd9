/**
 * How many lanes a shared forward pass (shared-forward.ts) runs on: two — this thread and a
 * worker — when the machine has two cores, the pass is worth a worker's start, and the worker
 * fits in free memory; else one.
 *
 *   forwardLanes(checkpoint, sequences, machine?) → 1 | 2
 *   laneCount(work, machine) → 1 | 2       (the rule, on the measured quantities)
 *
 * A lane takes seconds to start (its module graph through tsx, a wasm backend), so a pass under
 * MIN_LANE_FLOPS (a forward is ≈ 2 FLOPs per decoder parameter per token; ≈ 4 s on one core)
 * stays in this thread. The worker holds a thread's base and one decoder layer, counted twice (an
 * MoE layer's router and experts are read, then transposed); never the embedding: its sequences'
 * embedding rows come with each batch.
 */
import type { Checkpoint } from '../io/checkpoint.ts';
import { decoderLayerParams, machineResources, type MachineResources } from './worker-count.ts';

export const MIN_LANE_FLOPS = 1e11;
const FLOAT_BYTES = 4;
/** The JS engine, tfjs and the wasm module of one thread, before any tensor. */
const LANE_BASE_BYTES = 128 * 2 ** 20;

export interface LaneWork {
  readonly flops: number;
  readonly laneBytes: number;
}

export function laneCount(work: LaneWork, machine: MachineResources): 1 | 2 {
  return machine.cores >= 2 && work.flops >= MIN_LANE_FLOPS && machine.freeBytes >= work.laneBytes ? 2 : 1;
}

export function forwardLanes(checkpoint: Pick<Checkpoint, 'tensors'>, sequences: readonly { readonly ids: ArrayLike<number> }[], machine = machineResources()): 1 | 2 {
  const layerParams = decoderLayerParams(checkpoint);
  const decoderParams = layerParams.reduce((a, b) => a + b, 0);
  const largestLayer = Math.max(0, ...layerParams);
  const tokens = sequences.reduce((n, s) => n + s.ids.length, 0);
  const laneBytes = LANE_BASE_BYTES + 2 * largestLayer * FLOAT_BYTES;
  return laneCount({ flops: 2 * decoderParams * tokens, laneBytes }, machine);
}
