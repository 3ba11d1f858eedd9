/**
 * The values a `torch.save` file may hold in its weights-only subset, as the engine sees them:
 * dicts with string keys (Maps, so a key named `__proto__` is an ordinary key), lists (Python
 * tuples read as lists too), strings, numbers, booleans, None and tensors decoded to float32.
 */
export type TorchDType = 'F32' | 'BF16' | 'F16' | 'F64';

export interface TorchTensor {
  readonly kind: 'tensor';
  /** The storage's dtype in the file; `values` always holds the (exactly widened) float32 values. */
  readonly dtype: TorchDType;
  readonly shape: readonly number[];
  readonly values: Float32Array;
}

export type TorchValue = string | number | boolean | null | TorchTensor | TorchValue[] | Map<string, TorchValue>;

export function isTorchTensor(value: unknown): value is TorchTensor {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'tensor' && !(value instanceof Map);
}

/** Each dtype's storage class in `torch` (the name torch.save records) and its element size. */
export const STORAGE_TYPES: Readonly<Record<TorchDType, { readonly storage: string; readonly bytes: number }>> = {
  F32: { storage: 'FloatStorage', bytes: 4 },
  BF16: { storage: 'BFloat16Storage', bytes: 2 },
  F16: { storage: 'HalfStorage', bytes: 2 },
  F64: { storage: 'DoubleStorage', bytes: 8 },
};
