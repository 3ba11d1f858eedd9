/**
 * Messages between a shared forward pass and its second lane (forward-lane.ts, forward-lane-worker.ts).
 *
 *   main → worker   workerData LaneSetup; 'batch' (sequences and what to read of each)
 *   worker → main   'ready' once its backend and checkpoint are open; per layer of the batch
 *                   (and pass of a looped model) 'layer' with its records; 'done' after the last;
 *                   'failed' with the error's message
 */
import type { BackendName } from '../tensor/backend.ts';
import type { ForwardRecord, LayerReading } from './forward-requests.ts';

export interface LaneSetup {
  readonly checkpointDir: string;
  /** The calling thread's backend and memory budget: the lane computes exactly as it does. */
  readonly backend: BackendName;
  readonly memoryBudget: number;
}

export interface LaneSequence {
  readonly ids: readonly number[];
  readonly reads: readonly LayerReading[];
  /** Its embedding rows, gathered by the caller: the lane never reads the embedding itself. */
  readonly embedded: Float32Array;
}

/** A reading of sequence `sequence` of the batch, for its request `request`. */
export interface LaneRecord {
  readonly sequence: number;
  readonly request: number;
  readonly record: ForwardRecord;
}

export interface ToLane {
  readonly type: 'batch';
  readonly sequences: readonly LaneSequence[];
}

export type FromLane =
  | { readonly type: 'ready' }
  | { readonly type: 'layer'; readonly layer: number; readonly pass: number; readonly records: readonly LaneRecord[] }
  | { readonly type: 'done' }
  | { readonly type: 'failed'; readonly message: string };
