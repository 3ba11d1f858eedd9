/**
 * Messages between the gradients stage (main thread) and its worker threads
 * (gradient-worker.ts), and the packing of a layer's gradients for a zero-copy transfer.
 *
 *   main → worker   workerData: GradientWorkerData, then 'unit' (one batch) and 'ack' (a layer
 *                   was folded); a worker posts at most MAX_UNFOLDED_LAYERS layers not yet acked
 *   worker → main   'ready' once its backend and checkpoint are open and no chunk of the shared
 *                   tensors is left to claim (shared-read-claims.ts), then per unit one 'layer' per decoder
 *                   layer (top down) and 'done'; 'failed' with the error's text
 *
 * The pool posts a unit only when every worker is ready (each needs the whole shared embedding).
 */
import type { BackendName } from '../tensor/backend.ts';
import type { LayerGradsOptions } from '../model/layer-grads.ts';
import type { SharedReadClaims } from './shared-read-claims.ts';

/** A checkpoint tensor as float32, held once and shared read-only by every worker. */
export interface SharedTensor {
  readonly name: string;
  readonly buffer: SharedArrayBuffer;
}

/** Which share of the shared tensors one read covers: part `index` (0-based) of `count` (a chunk, shared-read-claims.ts). */
export interface SharedPart {
  readonly index: number;
  readonly count: number;
}

/**
 * Layers a worker may have posted that the main thread has not folded yet. Two, not one: a fold
 * that must wait for the previous batch's same layer (gradient-fold.ts) or a slow disk then
 * stalls the worker only when it lags by a whole layer. The main thread holds at most this many
 * layer maps per worker.
 */
export const MAX_UNFOLDED_LAYERS = 2;

export interface GradientWorkerSetup {
  readonly checkpointDir: string;
  /** The main thread's backend: every worker computes on the same one. */
  readonly backend: BackendName;
  /** The main thread's memory budget (model/memory-plan.ts): the same chunk sizes, the same sums. */
  readonly memoryBudget: number;
  readonly shared: readonly SharedTensor[];
}

/** What one worker starts with: the common setup and the claims through which the workers share the shared tensors' read. */
export interface GradientWorkerData extends GradientWorkerSetup {
  readonly claims: SharedReadClaims;
}

/** A loss sequence as structured clone carries it. */
export interface UnitSequence {
  readonly ids: readonly number[];
  readonly targets: readonly number[];
}

export type ToWorker =
  | { readonly type: 'unit'; readonly unit: number; readonly sequences: readonly UnitSequence[]; readonly options: LayerGradsOptions }
  | { readonly type: 'ack' };

export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'layer'; readonly unit: number; readonly layer: number; readonly names: readonly string[]; readonly values: readonly Float32Array[] }
  | { readonly type: 'done'; readonly unit: number }
  | { readonly type: 'failed'; readonly message: string };

/**
 * A layer's gradients as a 'layer' message and the buffers to transfer. A value that does not
 * own its whole buffer (or shares it with another) is copied first: transferring a shared
 * buffer would detach memory the worker still uses.
 */
export function packLayer(unit: number, layer: number, grads: ReadonlyMap<string, Float32Array>): { message: FromWorker; transfer: ArrayBuffer[] } {
  const seen = new Set<ArrayBufferLike>();
  const values = [...grads.values()].map((value) => {
    const owns = value.byteOffset === 0 && value.byteLength === value.buffer.byteLength && value.buffer instanceof ArrayBuffer && !seen.has(value.buffer);
    const own = owns ? value : value.slice();
    seen.add(own.buffer);
    return own;
  });
  return { message: { type: 'layer', unit, layer, names: [...grads.keys()], values }, transfer: values.map((v) => v.buffer as ArrayBuffer) };
}

export function unpackLayer(message: Extract<FromWorker, { type: 'layer' }>): Map<string, Float32Array> {
  return new Map(message.names.map((name, i) => [name, message.values[i] as Float32Array]));
}
