import { describe, expect, it } from 'vitest';
import { bf16BitsToF32, decodeHalf, encodeHalf, f16BitsToF32, f32ToBf16Bits, f32ToF16Bits, narrowInPlace, narrowInto, widenCheckedInPlace, widenInPlace, widenInto } from './half-float.ts';

const isNaNF16 = (b: number) => (b & 0x7c00) === 0x7c00 && (b & 0x3ff) !== 0;
const isNaNBf16 = (b: number) => (b & 0x7f80) === 0x7f80 && (b & 0x7f) !== 0;

describe('F16 narrowing (hand-computed)', () => {
  it.each([
    [1, 0x3c00],
    [-2, 0xc000],
    [0.1, 0x2e66],
    [65504, 0x7bff], // largest finite
    [65519, 0x7bff], // below the halfway point to 65536
    [65520, 0x7c00], // exact tie with odd mantissa 0x3ff: rounds to even, i.e. up to +inf
    [1e6, 0x7c00],
    [-1e6, 0xfc00],
    [Infinity, 0x7c00],
    [-Infinity, 0xfc00],
    [0, 0x0000],
    [-0, 0x8000],
    [2 ** -14, 0x0400], // smallest normal
    [(1023 / 1024) * 2 ** -14, 0x03ff], // largest subnormal
    [2 ** -24, 0x0001], // smallest subnormal
    [2 ** -25, 0x0000], // tie between 0 and 2^-24: to even (0)
    [3 * 2 ** -25, 0x0002], // tie between 1 and 2 ulps: to even (2)
    [2 ** -25 * 1.0001, 0x0001], // just above the tie
    [-(2 ** -26), 0x8000], // underflows to signed zero
    [1 + 2 ** -11, 0x3c00], // tie, even mantissa stays
    [1 + 3 * 2 ** -11, 0x3c02], // tie, odd mantissa rounds up
    [1 + 2 ** -11 + 2 ** -20, 0x3c01], // above the tie
    [4095 / 2048, 0x4000], // 0x3fff (odd) + half ulp: tie rounds up, carrying into the exponent
  ])('%s → %s', (value, bits) => {
    expect(f32ToF16Bits(value)).toBe(bits);
  });

  it('keeps NaN a NaN', () => {
    expect(isNaNF16(f32ToF16Bits(Number.NaN))).toBe(true);
  });
});

describe('F16 widening', () => {
  it.each([
    [0x0001, 2 ** -24],
    [0x03ff, 1023 * 2 ** -24],
    [0x0400, 2 ** -14],
    [0x3c00, 1],
    [0x7bff, 65504],
    [0xc000, -2],
    [0x7c00, Infinity],
    [0xfc00, -Infinity],
  ])('%s → %s', (bits, value) => {
    expect(f16BitsToF32(bits)).toBe(value);
  });

  it('gives -0 and NaN', () => {
    expect(Object.is(f16BitsToF32(0x8000), -0)).toBe(true);
    expect(f16BitsToF32(0x7e00)).toBeNaN();
    expect(f16BitsToF32(0xfd01)).toBeNaN();
  });

  it('round-trips every one of the 65536 bit patterns', () => {
    for (let b = 0; b < 0x10000; b++) {
      const back = f32ToF16Bits(f16BitsToF32(b));
      if (isNaNF16(b)) expect(isNaNF16(back)).toBe(true);
      else if (back !== b) expect.fail(`0x${b.toString(16)} came back as 0x${back.toString(16)}`);
    }
  });

  it('narrows to the nearest F16 (ties to even), checked against a search over all finite F16 values', () => {
    const finite: { bits: number; value: number }[] = [];
    for (let b = 0; b < 0x7c00; b++) finite.push({ bits: b, value: f16BitsToF32(b) });
    const nearest = (x: number): number => {
      let lo = 0;
      let hi = finite.length - 1;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if ((finite[mid]?.value ?? 0) <= x) lo = mid;
        else hi = mid;
      }
      const [a, b] = [finite[lo], finite[hi]] as [{ bits: number; value: number }, { bits: number; value: number }];
      const da = x - a.value;
      const db = b.value - x;
      if (x >= 65520) return 0x7c00;
      if (da < db) return a.bits;
      if (db < da) return b.bits;
      return (a.bits & 1) === 0 ? a.bits : b.bits;
    };
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    let seed = 12345;
    for (let i = 0; i < 20000; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      // Exponents spanning subnormal F16 to overflow, random mantissas.
      u32[0] = ((seed % 40) + 96) << 23 | ((seed * 2654435761) >>> 9);
      const x = f32[0] as number;
      expect(f32ToF16Bits(x)).toBe(nearest(x));
      expect(f32ToF16Bits(-x)).toBe(nearest(x) | 0x8000);
    }
  });
});

describe('BF16', () => {
  it.each([
    [1, 0x3f80],
    [-1, 0xbf80],
    [1 + 2 ** -8, 0x3f80], // tie, even stays
    [1 + 3 * 2 ** -8, 0x3f82], // tie, odd rounds up
    [1 + 2 ** -8 + 2 ** -20, 0x3f81],
    [3.4028234663852886e38, 0x7f80], // FLT_MAX rounds up to +inf
    [Infinity, 0x7f80],
    [-Infinity, 0xff80],
    [-0, 0x8000],
    [1e-40, 0x0001], // float32 subnormal 0x000116c2 → nearest BF16 subnormal
  ])('%s → %s', (value, bits) => {
    expect(f32ToBf16Bits(value)).toBe(bits);
  });

  it('keeps NaN a NaN, even when the payload sits in the dropped bits', () => {
    const f32 = new Float32Array(1);
    new Uint32Array(f32.buffer)[0] = 0x7f800001; // signalling NaN whose payload is all in the low bits
    expect(isNaNBf16(f32ToBf16Bits(f32[0] as number))).toBe(true);
    expect(isNaNBf16(f32ToBf16Bits(Number.NaN))).toBe(true);
  });

  it('widens by a 16-bit shift and round-trips every non-NaN pattern', () => {
    expect(bf16BitsToF32(0x0001)).toBe(2 ** -133);
    for (let b = 0; b < 0x10000; b++) {
      if (isNaNBf16(b)) continue;
      const back = f32ToBf16Bits(bf16BitsToF32(b));
      if (back !== b) expect.fail(`0x${b.toString(16)} came back as 0x${back.toString(16)}`);
    }
  });
});

describe('widenInPlace', () => {
  it.each([
    ['BF16', 0x10000], ['F16', 0x10000],
    // An odd count: the patterns start 2 bytes off a uint32 boundary (BF16 widens its first one alone).
    ['BF16', 0x10003], ['F16', 0x10003],
  ] as const)('gives decodeHalf\'s float32 bits for every one of the 65536 %s patterns (%i values), read from the upper half of the same array', (dtype, count) => {
    // Inside a larger buffer at an offset, as a reused read buffer is.
    const values = new Float32Array(new ArrayBuffer(4 * (count + 8)), 16, count);
    const patterns = Uint16Array.from({ length: count }, (_, i) => (i * 40503) & 0xffff); // every pattern, shuffled
    new Uint16Array(values.buffer, values.byteOffset + 2 * count, count).set(patterns);
    expect(widenInPlace(dtype, values)).toBe(values);
    const wide = new Uint32Array(values.buffer, values.byteOffset, count);
    const expected = new Uint32Array(decodeHalf(dtype, patterns).buffer);
    for (let i = 0; i < count; i++) if (wide[i] !== expected[i]) expect.fail(`pattern ${i}: 0x${wide[i]?.toString(16)} ≠ 0x${expected[i]?.toString(16)}`);
    expect(widenInPlace(dtype, new Float32Array(0)).length).toBe(0);
  });
});

describe('widenCheckedInPlace', () => {
  it.each([['BF16', 0x7f80], ['F16', 0x7c00]] as const)('says whether any %s pattern is NaN or ±Inf, wherever it sits (first, odd, even, last), and widens as widenInPlace does', (dtype, exponent) => {
    for (const count of [1, 2, 7, 1000, 1001]) {
      const finite = Uint16Array.from({ length: count }, (_, i) => (Math.imul(i, 40503) & 0xffff) & ~(exponent & ~(exponent >> 1))); // never an all-ones exponent
      const widen = (patterns: Uint16Array) => {
        const values = new Float32Array(new ArrayBuffer(4 * (count + 2)), 8, count);
        new Uint16Array(values.buffer, values.byteOffset + 2 * count, count).set(patterns);
        const ok = widenCheckedInPlace(dtype, values);
        return { ok, bits: [...new Uint32Array(values.buffer, values.byteOffset, count)] };
      };
      const clean = widen(finite);
      expect(clean.ok, `${count} finite`).toBe(true);
      expect(clean.bits).toEqual([...new Uint32Array(decodeHalf(dtype, finite).buffer)]);
      for (const at of new Set([0, 1, count >> 1, count - 1].filter((i) => i < count))) {
        for (const bad of [exponent, exponent | 0x8000, exponent | 1, exponent | 0x8001]) { // ±Inf, NaNs
          const patterns = Uint16Array.from(finite);
          patterns[at] = bad;
          const result = widen(patterns);
          expect(result.ok, `0x${bad.toString(16)} at ${at} of ${count}`).toBe(false);
          expect(result.bits).toEqual([...new Uint32Array(decodeHalf(dtype, patterns).buffer)]);
        }
      }
    }
  });

  it('widens patterns apart from the values (widenInto) at any alignment and count, with the same answer', () => {
    for (const dtype of ['BF16', 'F16'] as const) {
      for (const [offset, count] of [[0, 0], [0, 1], [2, 1], [0, 9], [2, 9], [2, 10], [4, 1000]] as const) {
        const patterns = new Uint16Array(new ArrayBuffer(2 * count + 8), offset, count);
        patterns.set(Uint16Array.from({ length: count }, (_, i) => (i * 40503 + 7) & 0x3fff)); // finite
        const values = new Float32Array(count);
        expect(widenInto(dtype, patterns, values), `${dtype} ${offset} ${count}`).toBe(true);
        expect(Array.from(values)).toEqual(Array.from(decodeHalf(dtype, patterns)));
        if (count > 0) {
          patterns[count - 1] = dtype === 'BF16' ? 0xff80 : 0xfc00; // -Inf last: the pattern left over after the pairs
          expect(widenInto(dtype, patterns, values), `${dtype} ${offset} ${count} with -Inf last`).toBe(false);
          expect(values[count - 1]).toBe(-Infinity);
        }
      }
    }
    expect(() => widenInto('BF16', new Uint16Array(3), new Float32Array(2))).toThrow(RangeError);
  });

  it('counts the largest finite values and the subnormals as finite', () => {
    for (const [dtype, patterns] of [['BF16', [0x7f7f, 0xff7f, 0x0001, 0x8001, 0x0000, 0x8000]], ['F16', [0x7bff, 0xfbff, 0x0001, 0x83ff, 0x0000, 0x8000]]] as const) {
      const values = new Float32Array(patterns.length);
      new Uint16Array(values.buffer, 2 * patterns.length, patterns.length).set(patterns);
      expect(widenCheckedInPlace(dtype, values), dtype).toBe(true);
    }
  });
});

describe('narrowInPlace', () => {
  it('narrowInto in place over consecutive ranges gives the whole array\'s patterns', () => {
    const bits = Uint32Array.from({ length: 10_001 }, (_, i) => (Math.imul(i, 2654435761) ^ (i << 9)) >>> 0);
    for (const dtype of ['BF16', 'F16'] as const) {
      const whole = Array.from(narrowInPlace(dtype, new Float32Array(Uint32Array.from(bits).buffer)));
      const values = new Float32Array(Uint32Array.from(bits).buffer);
      const inPlace = new Uint16Array(values.buffer, 0, values.length);
      let narrowed: Uint16Array = new Uint16Array(0);
      for (const [from, to] of [[0, 1], [1, 4096], [4096, 4097], [4097, 10_001]] as const) narrowed = narrowInto(dtype, values, inPlace, from, to);
      expect(Array.from(narrowed), dtype).toEqual(whole);
    }
  });


  it.each(['BF16', 'F16'] as const)('writes the %s patterns the scalar conversion gives, into the first half of the same array', (dtype) => {
    // Every float32 exponent with assorted mantissas and signs, the halfway cases, ±0, ±inf and NaNs with payloads.
    const bits = Uint32Array.from({ length: 1 << 17 }, (_, i) => (Math.imul(i, 2654435761) ^ (i << 7)) >>> 0);
    bits.set([0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00001, 0xffa00000, 0x3f808000, 0x3f818000, 0x7f7fffff]);
    const source = new Float32Array(bits.buffer);
    const expected = encodeHalf(dtype, source);
    const scalar = dtype === 'F16' ? f32ToF16Bits : f32ToBf16Bits;
    const values = Float32Array.from(source);
    const narrowed = narrowInPlace(dtype, values);
    expect(narrowed.buffer).toBe(values.buffer);
    expect(narrowed.length).toBe(values.length);
    for (let i = 0; i < narrowed.length; i++) {
      if (narrowed[i] !== expected[i] || expected[i] !== scalar(source[i] as number)) expect.fail(`value ${i} (0x${bits[i]?.toString(16)}): 0x${narrowed[i]?.toString(16)}, encodeHalf 0x${expected[i]?.toString(16)}`);
    }
  });
});

describe('array conversions', () => {
  it('agree with the scalar ones', () => {
    const values = Float32Array.from([0, -0, 1.5, -65504, 2 ** -24, 1 + 3 * 2 ** -11, Infinity, 3.3e38]);
    for (const dtype of ['F16', 'BF16'] as const) {
      const bits = encodeHalf(dtype, values);
      const scalar = dtype === 'F16' ? f32ToF16Bits : f32ToBf16Bits;
      expect([...bits]).toEqual([...values].map((v) => scalar(v)));
      const widen = dtype === 'F16' ? f16BitsToF32 : bf16BitsToF32;
      expect([...decodeHalf(dtype, bits)]).toEqual([...bits].map((b) => widen(b)));
    }
  });
});
