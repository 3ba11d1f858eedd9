/**
 * Messages between the export's main thread and its edit workers (edit-worker.ts, edit-worker-pool.ts).
 *
 * A tensor travels as each side's stored bytes inside an ArrayBuffer of its float32 size, placed
 * as ReadAhead.readPacked places them (F16/BF16 patterns in the upper half); the buffers are
 * transferred, never copied, and come back with the result, which lies in one of them when it
 * was narrowed in place. Errors cross as data: a CheckpointError keeps its code, file and tensor.
 */
import { CheckpointError, type CheckpointErrorCode } from '../io/checkpoint-error.ts';
import type { TensorSpec } from '../io/tensor-encoding.ts';
import type { RecipeMethod } from './recipe.ts';

/** What every worker gets at start: the edit is rebuilt from it (methodEdit, no analysis, no importance). */
export interface EditWorkerSetup {
  readonly method: RecipeMethod;
}

export interface PackedSide {
  readonly buffer: ArrayBuffer;
  readonly dtype: 'F32' | 'F16' | 'BF16';
  /** Values in the tensor (the buffer may be longer). */
  readonly count: number;
  readonly shape: readonly number[];
  /** The shard path errors name. */
  readonly file: string;
}

export interface EditJob {
  readonly id: number;
  readonly spec: TensorSpec;
  readonly instruct?: PackedSide;
  readonly thinking?: PackedSide;
}

/** The result's bytes: float32 values or 16-bit patterns, a view of `buffer`. */
export interface WirePayload {
  readonly kind: 'F32' | 'U16';
  readonly buffer: ArrayBuffer;
  readonly byteOffset: number;
  readonly length: number;
}

export type WireError =
  | { readonly kind: 'checkpoint'; readonly code: CheckpointErrorCode; readonly file: string; readonly detail: string; readonly tensor?: string }
  | { readonly kind: 'other'; readonly name: string; readonly message: string };

export type FromEditWorker =
  | { readonly type: 'edited'; readonly id: number; readonly payload: WirePayload; readonly note?: string; readonly inputs: readonly ArrayBuffer[] }
  | { readonly type: 'failed'; readonly id: number; readonly error: WireError; readonly inputs: readonly ArrayBuffer[] };

export function toWireError(error: unknown): WireError {
  if (error instanceof CheckpointError) {
    return { kind: 'checkpoint', code: error.code, file: error.file, detail: error.detail, ...(error.tensor === undefined ? {} : { tensor: error.tensor }) };
  }
  const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
  return { kind: 'other', name, message };
}

/** The error as the main thread throws it: the same CheckpointError, or a RangeError/Error with the worker's message. */
export function fromWireError(error: WireError): Error {
  if (error.kind === 'checkpoint') return new CheckpointError(error.code, error.file, error.detail, error.tensor);
  return error.name === 'RangeError' ? new RangeError(error.message) : new Error(error.message);
}

export function toWirePayload(values: Float32Array | Uint16Array): WirePayload {
  return { kind: values instanceof Float32Array ? 'F32' : 'U16', buffer: values.buffer as ArrayBuffer, byteOffset: values.byteOffset, length: values.length };
}

export function fromWirePayload(payload: WirePayload): Float32Array | Uint16Array {
  return payload.kind === 'F32' ? new Float32Array(payload.buffer, payload.byteOffset, payload.length) : new Uint16Array(payload.buffer, payload.byteOffset, payload.length);
}
