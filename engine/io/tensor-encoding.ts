/** Turning tensor values into the little-endian bytes of a safetensors dtype. */
import { CheckpointError } from './checkpoint-error.ts';
import { DTYPE_BYTES, type DType, type RawTensorData } from './dtype.ts';
import { encodeHalf } from './half-float.ts';
import { numel } from './safetensors-header.ts';

export interface TensorSpec {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: readonly number[];
}

/**
 * Values for one tensor: float32 values (narrowed to F16/BF16 or widened to F64 as the spec
 * says) or a raw typed array already in the spec's dtype (F16/BF16 as 16-bit patterns).
 */
export type TensorPayload = Float32Array | RawTensorData;

export function byteSize(spec: TensorSpec): number {
  return numel(spec.shape) * DTYPE_BYTES[spec.dtype];
}

export function encodeTensor(file: string, spec: TensorSpec, data: TensorPayload): Uint8Array {
  const count = numel(spec.shape);
  if (data.length !== count) {
    throw new CheckpointError('shape', file, `has ${data.length} values but shape [${spec.shape.join(', ')}] needs ${count}`, spec.name);
  }
  const typed = data instanceof Float32Array ? fromFloat32(spec.dtype, data) : data;
  if (typed === undefined || typed.BYTES_PER_ELEMENT !== DTYPE_BYTES[spec.dtype]) {
    throw new CheckpointError('dtype', file, `a ${data.constructor.name} cannot be written as ${spec.dtype}`, spec.name);
  }
  return new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
}

function fromFloat32(dtype: DType, data: Float32Array): RawTensorData | undefined {
  switch (dtype) {
    case 'F32': return data;
    case 'F16':
    case 'BF16': return encodeHalf(dtype, data);
    case 'F64': return Float64Array.from(data);
    default: return undefined;
  }
}
