/**
 * The one finiteness check on tensor values: the first NaN or ±Inf is a CheckpointError naming the
 * file, the tensor and the flat index. Used where weights are read before analysis or scoring
 * (model/finite-weights.ts, on the stored bits) and on both sides and the result of every
 * exported tensor (export/edited-tensor.ts, on the float32 values it computes with anyway).
 *
 *   assertFiniteValues(values, file, tensor, what, outcome, first?)   what: "contains", "was edited into"…
 *   assertFiniteStored(dtype, bytes, first, file, tensor, what, outcome)   the same on stored bytes
 *   narrowFiniteInto(dtype, values, out, first, file, tensor, what, outcome)   the same, inside the narrowing's pass
 *
 * The export reads its inputs with half-float.ts widenInto (the test inside the widening pass)
 * and looks for the first bad value with assertFiniteValues only when that test fails.
 */
import { CheckpointError } from './checkpoint-error.ts';
import type { FloatDType } from './dtype.ts';
import { bf16BitsToF32, f16BitsToF32, HALF_EXPONENT, narrowInto } from './half-float.ts';

/** `first`: the flat index of values[0] in its tensor, when `values` is a block of it. */
export function assertFiniteValues(values: Float32Array, file: string, tensor: string, what: string, outcome: string, first = 0): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (!Number.isFinite(v)) throw nonFinite(v, first + i, file, tensor, what, outcome);
  }
}

/**
 * The same check on a tensor's stored bytes, without widening them: `bytes` (aligned, whole
 * elements) hold its elements first… in `dtype`. An element is refused exactly when reading it
 * as float32 would give NaN or ±Inf: F32/F16/BF16 with an all-ones exponent, F64 also past
 * float32's range. The message shows that float32 value, as assertFiniteValues would.
 */
export function assertFiniteStored(dtype: FloatDType, bytes: Uint8Array, first: number, file: string, tensor: string, what: string, outcome: string): void {
  const at = firstNonFinite(dtype, bytes);
  if (at >= 0) throw nonFinite(storedAsFloat32(dtype, bytes, at), first + at, file, tensor, what, outcome);
}

/** Values checked at a time before they are narrowed: 64 KiB of float32, still in cache when narrowed. */
const NARROW_BLOCK = 16_384;

/**
 * narrowInto(dtype, values, out) (out may be values' own first half, see narrowInPlace), refusing
 * a NaN or ±Inf among `values` with assertFiniteValues's error (the first such index, counted from
 * `first`, the flat index of values[0]). Each block is checked just before it is narrowed, while
 * it is in cache, so the check costs no pass of its own over a tensor-sized array (two thirds of
 * the export's finiteness time when it was one). On an error the blocks before the bad one are
 * already narrowed: the caller drops `out` (the export stops, writing nothing).
 */
export function narrowFiniteInto(dtype: 'F16' | 'BF16', values: Float32Array, out: Uint16Array, first: number, file: string, tensor: string, what: string, outcome: string): Uint16Array {
  const words = new Uint32Array(values.buffer, values.byteOffset, values.length);
  for (let from = 0; from < values.length; from += NARROW_BLOCK) {
    const to = Math.min(values.length, from + NARROW_BLOCK);
    for (let i = from; i < to; i++) {
      if (((words[i] as number) & 0x7f800000) === 0x7f800000) throw nonFinite(values[i] as number, first + i, file, tensor, what, outcome);
    }
    narrowInto(dtype, values, out, from, to);
  }
  return out;
}

function nonFinite(value: number, index: number, file: string, tensor: string, what: string, outcome: string): CheckpointError {
  return new CheckpointError('non-finite', file, `${what} ${value} at flat index ${index}; ${outcome}`, tensor);
}

function firstNonFinite(dtype: FloatDType, bytes: Uint8Array): number {
  const { buffer, byteOffset, byteLength } = bytes;
  switch (dtype) {
    case 'F64': {
      const values = new Float64Array(buffer, byteOffset, byteLength / 8);
      for (let i = 0; i < values.length; i++) if (!Number.isFinite(Math.fround(values[i] as number))) return i;
      return -1;
    }
    case 'F32': {
      const words = new Uint32Array(buffer, byteOffset, byteLength / 4);
      for (let i = 0; i < words.length; i++) if (((words[i] as number) & 0x7f800000) === 0x7f800000) return i;
      return -1;
    }
    case 'F16':
    case 'BF16': return firstHalfNonFinite(HALF_EXPONENT[dtype], bytes);
  }
}

/**
 * Two half floats per uint32 load: adding the exponent's lowest bit to the masked exponent
 * carries into the bit above it only when the exponent is all ones (0x7f80 + 0x0080 = 0x8000
 * for BF16, 0x7c00 + 0x0400 for F16), and the low half's sum never reaches the high half, so one
 * test covers both. A flagged pair, or an odd last element, is looked at element by element.
 */
function firstHalfNonFinite(exponent: number, bytes: Uint8Array): number {
  const { buffer, byteOffset, byteLength } = bytes;
  const halves = new Uint16Array(buffer, byteOffset, byteLength / 2);
  const pairs = new Uint32Array(buffer, byteOffset, halves.length >> 1);
  const mask = exponent | (exponent << 16);
  const carry = (exponent & -exponent) * 0x10001;
  for (let k = 0; k < pairs.length; k++) {
    if ((((pairs[k] as number) & mask) + carry) & 0x80008000) return ((halves[2 * k] as number) & exponent) === exponent ? 2 * k : 2 * k + 1;
  }
  const last = halves.length - 1;
  return halves.length % 2 === 1 && ((halves[last] as number) & exponent) === exponent ? last : -1;
}

function storedAsFloat32(dtype: FloatDType, bytes: Uint8Array, index: number): number {
  const { buffer, byteOffset, byteLength } = bytes;
  switch (dtype) {
    case 'F64': return Math.fround(new Float64Array(buffer, byteOffset, byteLength / 8)[index] as number);
    case 'F32': return new Float32Array(buffer, byteOffset, byteLength / 4)[index] as number;
    case 'F16': return f16BitsToF32(new Uint16Array(buffer, byteOffset, byteLength / 2)[index] as number);
    case 'BF16': return bf16BitsToF32(new Uint16Array(buffer, byteOffset, byteLength / 2)[index] as number);
  }
}
