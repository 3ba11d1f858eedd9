/**
 * Messages between the gradients stage (main thread) and its worker threads
 * (gradient-worker.ts), and the packing of a layer's gradients for a zero-copy transfer.
 *
 *   main → worker   workerData: GradientWorkerSetup, then 'unit' (one batch) and 'ack' (a layer
 *                   was folded: the worker may post the next one)
 *   worker → main   'ready' once its backend and checkpoint are open, then per unit one 'layer'
 *                   per decoder layer (top down) and 'done'; 'failed' with the error's text
 */
import type { BackendName } from '../tensor/backend.ts';
import type { LayerGradsOptions } from '../model/layer-grads.ts';

/** A checkpoint tensor read once by the main thread and shared read-only with every worker. */
export interface SharedTensor {
  readonly name: string;
  readonly buffer: SharedArrayBuffer;
}

export interface GradientWorkerSetup {
  readonly checkpointDir: string;
  /** The main thread's backend: every worker computes on the same one. */
  readonly backend: BackendName;
  /** The main thread's memory budget (model/memory-plan.ts): the same chunk sizes, the same sums. */
  readonly memoryBudget: number;
  readonly shared: readonly SharedTensor[];
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
