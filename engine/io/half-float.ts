/**
 * IEEE binary16 (F16) and bfloat16 (BF16) <-> float32 conversions, bit-exact.
 * Narrowing rounds to nearest, ties to even, as PyTorch does; NaN stays NaN (quiet), ±inf stays
 * ±inf, F16 overflow goes to ±inf and tiny values to F16 subnormals or signed zero.
 */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function bf16BitsToF32(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0] as number;
}

export function f32ToBf16Bits(value: number): number {
  f32[0] = value;
  const bits = u32[0] as number;
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x007fffff) !== 0) {
    return ((bits >>> 16) | 0x0040) & 0xffff; // keep sign and payload top, force quiet
  }
  const lsb = (bits >>> 16) & 1;
  return ((bits + 0x7fff + lsb) >>> 16) & 0xffff;
}

export function f16BitsToF32(bits: number): number {
  const sign = (bits & 0x8000) << 16;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0x1f) {
    u32[0] = sign | 0x7f800000 | (mant << 13);
    return f32[0] as number;
  }
  if (exp === 0) {
    const magnitude = mant * 2 ** -24; // subnormal (or zero): exact in float32
    return sign ? -magnitude : magnitude;
  }
  u32[0] = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  return f32[0] as number;
}

export function f32ToF16Bits(value: number): number {
  f32[0] = value;
  const bits = u32[0] as number;
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant === 0 ? 0 : 0x200 | (mant >>> 13));
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    // Result is an F16 subnormal: count in units of 2^-24 and round the dropped bits.
    const shift = 14 - e;
    if (shift > 24) return sign;
    const full = mant | 0x800000;
    return sign | roundShift(full, shift);
  }
  const rounded = roundShift(mant, 13) + (e << 10); // a mantissa carry bumps the exponent (to inf at most)
  return sign | rounded;
}

/** x >> shift, rounded to nearest with ties to even. */
function roundShift(x: number, shift: number): number {
  const q = x >>> shift;
  const rem = x & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  return rem > half || (rem === half && (q & 1) === 1) ? q + 1 : q;
}

export function decodeHalf(dtype: 'F16' | 'BF16', bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  if (dtype === 'BF16') {
    const wide = new Uint32Array(out.buffer);
    for (let i = 0; i < bits.length; i++) wide[i] = (bits[i] as number) << 16;
  } else {
    for (let i = 0; i < bits.length; i++) out[i] = f16BitsToF32(bits[i] as number);
  }
  return out;
}

/**
 * F16/BF16 widened in place: `values` (count float32 slots) holds the count 16-bit patterns in
 * its upper half (bytes 2·count… of the view); the result is `values` itself. Forward order is
 * safe: writing float i (bytes 4i…4i+3) only touches patterns already read (index count+i' < 2i+2
 * means i' ≤ i for every i < count). A tensor read this way costs no allocation beyond its
 * float32 size (fresh pages are what dominated the decode in the issue-14 profile, not the shifts),
 * and none at all when the caller reuses the array.
 */
export function widenInPlace(dtype: 'F16' | 'BF16', values: Float32Array): Float32Array {
  widenCheckedInPlace(dtype, values);
  return values;
}

/**
 * widenInPlace, returning whether every value came out finite (no pattern with an all-ones
 * exponent, i.e. no NaN or ±Inf). The test rides on the widening's loads, so a caller that must
 * refuse non-finite inputs (the export) needs no second pass over the tensor: one where it is
 * false looks for the first bad value (assertFiniteValues) only then.
 */
export function widenCheckedInPlace(dtype: 'F16' | 'BF16', values: Float32Array): boolean {
  return widenInto(dtype, new Uint16Array(values.buffer, values.byteOffset + 2 * values.length, values.length), values);
}

/**
 * F16/BF16 `patterns` widened into `values` (as long), returning whether all were finite (as
 * widenCheckedInPlace). `patterns` is either apart from `values` or exactly its upper half
 * (widenCheckedInPlace, where forward order makes that safe).
 */
export function widenInto(dtype: 'F16' | 'BF16', patterns: Uint16Array, values: Float32Array): boolean {
  if (patterns.length !== values.length) throw new RangeError(`${patterns.length} patterns cannot widen into ${values.length} values`);
  if (dtype === 'BF16' && LITTLE_ENDIAN) return widenBf16Pairs(patterns, values);
  const count = values.length;
  const exponent = HALF_EXPONENT[dtype];
  let flags = 0;
  if (dtype === 'BF16') {
    const wide = new Int32Array(values.buffer, values.byteOffset, count);
    for (let i = 0; i < count; i++) {
      const pattern = patterns[i] as number;
      flags |= (pattern & exponent) + LOWEST_EXPONENT_BIT.BF16;
      wide[i] = pattern << 16;
    }
  } else {
    for (let i = 0; i < count; i++) {
      const pattern = patterns[i] as number;
      flags |= (pattern & exponent) + LOWEST_EXPONENT_BIT.F16;
      values[i] = f16BitsToF32(pattern);
    }
  }
  return (flags & 0x8000) === 0;
}

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/**
 * Exponent masks of the half floats (all ones: Inf or NaN) and their lowest bit: adding the bit
 * to the masked exponent carries into bit 15 exactly when the exponent is all ones
 * (0x7f80 + 0x0080 = 0x8000 for BF16, 0x7c00 + 0x0400 for F16), so OR-ing those sums over a
 * tensor flags any non-finite value without a branch.
 */
export const HALF_EXPONENT = { BF16: 0x7f80, F16: 0x7c00 } as const;
const LOWEST_EXPONENT_BIT = { BF16: 0x0080, F16: 0x0400 } as const;

/**
 * BF16 widened two patterns per load: on a little-endian machine the uint32 over patterns i and
 * i+1 holds i in its low half, so float i is its low half shifted up and float i+1 its high half
 * masked — half the loads of one pattern at a time, about twice as fast. Patterns 2 bytes off a
 * uint32 boundary (an odd count in place) have their first widened alone, and a pattern left
 * over after the pairs is widened alone too. In place (patterns in the upper half of values) it is
 * still forward order: floats i, i+1 (bytes 4i…4i+7) are written after the pair at
 * 2·count + 2i is read, and every pair still unread starts past byte 4i+7
 * (2·count + 2i + 4 > 4i + 7 for i ≤ count − 2).
 * Returns whether all were finite: the exponent test of HALF_EXPONENT on both halves of each
 * pair at once (the low half's sum stays below bit 16).
 */
function widenBf16Pairs(patterns: Uint16Array, values: Float32Array): boolean {
  const count = values.length;
  const wide = new Int32Array(values.buffer, values.byteOffset, count);
  const head = Math.min(count, (patterns.byteOffset & 2) >> 1);
  const mask = HALF_EXPONENT.BF16 * 0x10001;
  const carry = LOWEST_EXPONENT_BIT.BF16 * 0x10001;
  // The first and last patterns when widened alone (a closure over `flags` would slow the loop).
  const first = head === 1 ? patterns[0] as number : 0;
  const tail = count > head && (count - head) % 2 === 1 ? count - 1 : -1;
  const last = tail >= 0 ? patterns[tail] as number : 0;
  let flags = ((first & mask) + carry) | ((last & mask) + carry);
  if (head === 1) wide[0] = first << 16;
  const pairs = new Uint32Array(patterns.buffer, patterns.byteOffset + 2 * head, (count - head) >> 1);
  for (let k = 0, i = head; k < pairs.length; k++, i += 2) {
    const pair = pairs[k] as number;
    flags |= (pair & mask) + carry;
    wide[i] = pair << 16;
    wide[i + 1] = pair & 0xffff0000;
  }
  if (tail >= 0) wide[tail] = last << 16;
  return (flags & 0x80008000) === 0;
}

export function encodeHalf(dtype: 'F16' | 'BF16', values: Float32Array): Uint16Array {
  return narrowInto(dtype, values, new Uint16Array(values.length));
}

/**
 * `values` narrowed to F16/BF16 in place: the patterns, as a view of the array's first half (the
 * rest of its bytes are left as they were). Forward order is safe: pattern i (bytes 2i…2i+1) lands
 * in float ⌊i/2⌋ ≤ i, already read. Same rounding as encodeHalf; the export writes a tensor's
 * edited float32 values this way without a second array.
 */
export function narrowInPlace(dtype: 'F16' | 'BF16', values: Float32Array): Uint16Array {
  return narrowInto(dtype, values, new Uint16Array(values.buffer, values.byteOffset, values.length));
}

/**
 * Round to nearest even of values [from, to) into out[from, to) (`out` may alias `values`' first
 * half, see narrowInPlace). Calls over consecutive ascending ranges give the whole array's result,
 * and in place the values at `to` and past are still unread float32 — so a caller can look at
 * each range just before it is narrowed (finite-values.ts narrowFiniteInto).
 */
export function narrowInto(dtype: 'F16' | 'BF16', values: Float32Array, out: Uint16Array, from = 0, to = values.length): Uint16Array {
  if (dtype === 'F16') {
    for (let i = from; i < to; i++) out[i] = f32ToF16Bits(values[i] as number);
    return out;
  }
  // f32ToBf16Bits on the bit patterns directly: no round trip through a scratch float per value.
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  for (let i = from; i < to; i++) {
    const b = bits[i] as number;
    out[i] = (b & 0x7fffffff) > 0x7f800000 ? ((b >>> 16) | 0x0040) & 0xffff : ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) & 0xffff;
  }
  return out;
}
