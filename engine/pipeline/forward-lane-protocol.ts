/**
 * Messages between a shared forward pass and its second lane (forward-lane.ts, forward-lane-worker.ts).
 *
 *   main → worker   workerData LaneSetup; 'batch' (sequences and what to read of each);
 *                   'solve' (a GSP key's rows or Gram, solved after the batches before it)
 *   worker → main   'ready' once its backend and checkpoint are open; per layer of the batch
 *                   (and pass of a looped model) 'layer' with its records; 'done' after the last;
 *                   'solved' per 'solve', in order, with its projector (none: the key gets none);
 *                   'failed' with the error's message
 */
import type { GramSnapshot } from '../crane/gram-accumulator.ts';
import type { GspProjector } from '../crane/gsp-projector.ts';
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

/** projectorOfRows' options. */
export interface SolveOptions {
  readonly maxRank: number;
  readonly rankCut: number;
}

export type ToLane =
  | { readonly type: 'batch'; readonly sequences: readonly LaneSequence[] }
  | { readonly type: 'solve'; readonly gram: GramSnapshot; readonly options: SolveOptions };

export type FromLane =
  | { readonly type: 'ready' }
  | { readonly type: 'layer'; readonly layer: number; readonly pass: number; readonly records: readonly LaneRecord[] }
  | { readonly type: 'done' }
  | { readonly type: 'solved'; readonly projector: GspProjector | null }
  | { readonly type: 'failed'; readonly message: string };
