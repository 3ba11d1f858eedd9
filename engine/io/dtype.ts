/** safetensors dtypes, their byte sizes and the typed array each is read into. */
export const DTYPE_BYTES = {
  F64: 8,
  F32: 4,
  F16: 2,
  BF16: 2,
  I64: 8,
  I32: 4,
  I16: 2,
  I8: 1,
  U64: 8,
  U32: 4,
  U16: 2,
  U8: 1,
  BOOL: 1,
} as const;

export type DType = keyof typeof DTYPE_BYTES;

/** Floating dtypes the engine computes with (all read as float32: halves widened, F64 narrowed). */
export type FloatDType = 'F64' | 'F32' | 'F16' | 'BF16';

export type RawTensorData =
  | Float64Array
  | Float32Array
  | Uint16Array
  | BigInt64Array
  | BigUint64Array
  | Int32Array
  | Uint32Array
  | Int16Array
  | Int8Array
  | Uint8Array;

export function isDType(value: unknown): value is DType {
  return typeof value === 'string' && Object.hasOwn(DTYPE_BYTES, value);
}

export function isFloatDType(dtype: DType): dtype is FloatDType {
  return dtype === 'F64' || dtype === 'F32' || dtype === 'F16' || dtype === 'BF16';
}

/**
 * Views little-endian bytes as the dtype's typed array. F16 and BF16 come back as their raw
 * 16-bit patterns (Uint16Array); BOOL as Uint8Array (0 or 1). The bytes must be freshly
 * allocated (offset 0) so that every view is aligned.
 */
export function viewAs(dtype: DType, bytes: Uint8Array): RawTensorData {
  const { buffer, byteOffset, byteLength } = bytes;
  const count = byteLength / DTYPE_BYTES[dtype];
  switch (dtype) {
    case 'F64': return new Float64Array(buffer, byteOffset, count);
    case 'F32': return new Float32Array(buffer, byteOffset, count);
    case 'F16':
    case 'BF16':
    case 'U16': return new Uint16Array(buffer, byteOffset, count);
    case 'I64': return new BigInt64Array(buffer, byteOffset, count);
    case 'U64': return new BigUint64Array(buffer, byteOffset, count);
    case 'I32': return new Int32Array(buffer, byteOffset, count);
    case 'U32': return new Uint32Array(buffer, byteOffset, count);
    case 'I16': return new Int16Array(buffer, byteOffset, count);
    case 'I8': return new Int8Array(buffer, byteOffset, count);
    case 'U8':
    case 'BOOL': return new Uint8Array(buffer, byteOffset, count);
  }
}
