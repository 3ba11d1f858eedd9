import { describe, expect, it } from 'vitest';
import { CheckpointError } from './checkpoint-error.ts';
import type { FloatDType } from './dtype.ts';
import { assertFiniteStored, assertFiniteValues, narrowFiniteInto } from './finite-values.ts';
import { decodeHalf, encodeHalf } from './half-float.ts';
import { encodeTensor } from './tensor-encoding.ts';

describe('assertFiniteValues', () => {
  it('accepts finite values, including the extremes of float32', () => {
    expect(() => assertFiniteValues(new Float32Array([0, -0, 3.4028234663852886e38, -1e-45]), 'f', 't', 'contains', 'x')).not.toThrow();
  });

  it.each([NaN, Infinity, -Infinity])('names file, tensor and the first index of %s', (bad) => {
    const values = new Float32Array([1, 2, bad, NaN]);
    let caught: unknown;
    try {
      assertFiniteValues(values, '/m/model.safetensors', 'lm_head.weight', 'contains', 'nothing was written');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CheckpointError);
    const error = caught as CheckpointError;
    expect(error.code).toBe('non-finite');
    expect(error.message).toContain('/m/model.safetensors');
    expect(error.message).toContain('lm_head.weight');
    expect(error.message).toContain(`contains ${bad} at flat index 2; nothing was written`);
  });
});

describe('narrowFiniteInto', () => {
  /** Values over several check blocks (16,384 each), with the float32 extremes that narrow to ±Inf in BF16/F16 (finite here). */
  const finite = () => Float32Array.from({ length: 40_000 }, (_, i) => (i % 997 === 0 ? 3.4028234663852886e38 : Math.sin(i) * 2 ** ((i % 60) - 30)));

  it.each(['BF16', 'F16'] as const)('narrows finite values to encodeHalf\'s %s patterns, in the same array', (dtype) => {
    const values = finite();
    const expected = Array.from(encodeHalf(dtype, values));
    const apart = narrowFiniteInto(dtype, values, new Uint16Array(values.length), 0, 'f', 't', 'was edited into', 'x');
    expect(Array.from(apart)).toEqual(expected);
    const narrowed = narrowFiniteInto(dtype, values, new Uint16Array(values.buffer, 0, values.length), 0, 'f', 't', 'was edited into', 'x');
    expect(Array.from(narrowed)).toEqual(expected);
  });

  it.each([[0, NaN], [16_383, Infinity], [16_384, -Infinity], [39_999, NaN]])('refuses the first bad value (index %i: %s) as assertFiniteValues does, a later one in the same block left unnamed, counting from `first`', (at, bad) => {
    const values = finite();
    values[at] = bad;
    values[Math.min(at + 1, values.length - 1)] = NaN;
    const error = (() => {
      try {
        narrowFiniteInto('BF16', values, new Uint16Array(values.buffer, 0, values.length), 1000, '/m/model.safetensors', 'lm_head.weight', 'was edited into', 'nothing was written');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).code).toBe('non-finite');
    expect((error as CheckpointError).message).toContain('lm_head.weight');
    expect((error as CheckpointError).message).toContain(`was edited into ${bad} at flat index ${1000 + at}; nothing was written`);
  });
});

describe('assertFiniteValues on a block', () => {
  it('names the flat index counted from `first`', () => {
    expect(() => assertFiniteValues(new Float32Array([1, NaN]), 'f', 't', 'contains', 'x', 4096)).toThrow('contains NaN at flat index 4097; x');
  });
});

describe('assertFiniteStored', () => {
  const FLOAT_DTYPES = ['F64', 'F32', 'F16', 'BF16'] as const;

  /** The flat index the check reports for `bytes`, or -1 when it accepts them. */
  function reportedIndex(dtype: FloatDType, bytes: Uint8Array, first = 0): number {
    try {
      assertFiniteStored(dtype, bytes, first, 'f', 't', 'contains', 'x');
      return -1;
    } catch (error) {
      return Number(/at flat index (\d+);/.exec((error as Error).message)?.[1]);
    }
  }

  function stored(dtype: FloatDType, values: readonly number[]): Uint8Array {
    return encodeTensor('f', { name: 't', dtype, shape: [values.length] }, Float32Array.from(values));
  }

  it.each(FLOAT_DTYPES)('accepts the largest finite %s values and signed zeros', (dtype) => {
    const largest = { F64: 3.4028234663852886e38, F32: 3.4028234663852886e38, F16: 65504, BF16: 3.3895313892515355e38 }[dtype];
    expect(reportedIndex(dtype, stored(dtype, [largest, -largest, 0, -0, 1e-45]))).toBe(-1);
  });

  it.each(FLOAT_DTYPES.flatMap((dtype) => [NaN, Infinity, -Infinity].flatMap((bad) => [0, 1, 4].map((at) => [dtype, bad, at] as const))))(
    '%s: names file, tensor, the value %s and its index %i (offset by the chunk start)',
    (dtype, bad, at) => {
      const values = [1, 2, 3, 4, 5];
      values[at] = bad;
      values.push(NaN); // a later one is not the one reported
      let caught: unknown;
      try {
        assertFiniteStored(dtype, stored(dtype, values), 1000, '/m/model.safetensors', 'lm_head.weight', 'contains', 'nothing was analysed');
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ code: 'non-finite', file: '/m/model.safetensors', tensor: 'lm_head.weight' });
      expect((caught as Error).message).toContain(`contains ${bad} at flat index ${1000 + at}; nothing was analysed`);
    },
  );

  it('refuses an F64 value past float32 range, which reading it as float32 turns into Infinity', () => {
    const bytes = new Uint8Array(Float64Array.of(1, -1e39).buffer);
    expect(() => assertFiniteStored('F64', bytes, 0, 'f', 't', 'contains', 'x')).toThrow(/contains -Infinity at flat index 1/);
  });

  it.each(['F16', 'BF16'] as const)('agrees with widening every %s pattern to float32, odd lengths included', (dtype) => {
    // Every 16-bit pattern once, shuffled by a fixed odd stride so non-finite ones land at both halves of a pair.
    const patterns = Uint16Array.from({ length: 65536 }, (_, i) => (i * 40503) & 0xffff);
    const widened = decodeHalf(dtype, patterns);
    for (let start = 0; start < patterns.length; start += 997) {
      const slice = patterns.slice(start, start + 997);
      const expected = widened.subarray(start, start + slice.length).findIndex((v) => !Number.isFinite(v));
      expect(reportedIndex(dtype, new Uint8Array(slice.buffer), start)).toBe(expected < 0 ? -1 : start + expected);
    }
  });

  it('agrees with Number.isFinite on every F32 exponent and sign', () => {
    const words = Uint32Array.from({ length: 512 }, (_, i) => (i << 23) | 0x1234);
    const floats = new Float32Array(words.buffer);
    for (let i = 0; i < words.length; i++) {
      expect(reportedIndex('F32', new Uint8Array(words.buffer, 4 * i, 4))).toBe(Number.isFinite(floats[i]) ? -1 : 0);
    }
  });
});
