import { describe, expect, it } from 'vitest';
import { CheckpointError } from './checkpoint-error.ts';
import { assertFiniteValues } from './finite-values.ts';

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
