/**
 * ChunkedCrossEntropy against a one-pass float64 softmax on whole rows, with rows where the
 * target dominates (151,936 logits, the target 20 above the rest), rows where it does not, and
 * chunkings that split a row unevenly.
 */
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { ChunkedCrossEntropy } from './chunked-cross-entropy.ts';
import { relativeError } from './testing/relative-error.ts';

/** Float64 CE and d(Σ w·CE)/dz of whole rows, the label's entry written as p − 1. */
function direct(logits: Float32Array, labels: readonly number[], weights: readonly number[]): { losses: number[]; grad: Float64Array } {
  const width = logits.length / labels.length;
  const grad = new Float64Array(logits.length);
  const losses = labels.map((label, r) => {
    const row = Array.from(logits.subarray(r * width, (r + 1) * width));
    const max = row.reduce((m, z) => Math.max(m, z), -Infinity);
    const sum = row.reduce((s, z) => s + Math.exp(z - max), 0);
    row.forEach((z, j) => (grad[r * width + j] = (weights[r] as number) * (Math.exp(z - max) / sum - (j === label ? 1 : 0))));
    return Math.log(sum) + max - (row[label] as number);
  });
  return { losses, grad };
}

/** Runs both passes over chunks of the given widths. */
function chunked(logits: Float32Array, labels: readonly number[], weights: readonly number[], widths: readonly number[]): { losses: Float64Array; grad: Float32Array } {
  const width = logits.length / labels.length;
  const slice = (start: number, size: number): Float32Array => {
    const out = new Float32Array(labels.length * size);
    labels.forEach((_, r) => out.set(logits.subarray(r * width + start, r * width + start + size), r * size));
    return out;
  };
  const chunks = widths.map((size, i) => ({ start: widths.slice(0, i).reduce((a, b) => a + b, 0), size }));
  const ce = new ChunkedCrossEntropy(labels);
  for (const c of chunks) ce.add(slice(c.start, c.size), c.start);
  const grad = new Float32Array(logits.length);
  for (const c of chunks) {
    const g = ce.gradient(slice(c.start, c.size), c.start, weights);
    labels.forEach((_, r) => grad.set(g.subarray(r * c.size, (r + 1) * c.size), r * width + c.start));
  }
  return { losses: ce.losses(), grad };
}

describe('ChunkedCrossEntropy', () => {
  it('matches float64 on a 151,936-wide row whose target dominates, chunked as the head does', () => {
    const vocab = 151_936;
    const rng = new SeededRandom(3);
    const labels = [70_001, 12, 151_935];
    const logits = new Float32Array(labels.length * vocab).map(() => rng.normal() * 0.5);
    labels.forEach((l, r) => (logits[r * vocab + l] = 20));
    const weights = [0.5, 0.25, 0.25];
    const want = direct(logits, labels, weights);
    const got = chunked(logits, labels, weights, [16_384, 16_384, 16_384, 16_384, 16_384, 16_384, 16_384, 16_384, 16_384, 4_480]);
    // p_label ≈ 1 − 3·10⁻⁴: the case where a float32 sum of exp returns exactly 1.
    for (const loss of want.losses) expect(loss).toBeGreaterThan(1e-4);
    expect(relativeError(got.losses, want.losses)).toBeLessThan(1e-9);
    expect(relativeError(got.grad, want.grad)).toBeLessThan(1e-7);
    labels.forEach((l, r) => expect(Math.abs((got.grad[r * vocab + l] as number) / (want.grad[r * vocab + l] as number) - 1)).toBeLessThan(1e-7));
  });

  it('gives the same result however a row is chunked, with rising maxima across chunks', () => {
    const labels = [0, 9, 4];
    const logits = Float32Array.from({ length: 30 }, (_, i) => (i % 10) * 0.7 - (i > 15 ? 3 : 0));
    const weights = [1, 2, 3];
    const want = direct(logits, labels, weights);
    for (const widths of [[10], [1, 9], [3, 3, 3, 1], [7, 3]]) {
      const got = chunked(logits, labels, weights, widths);
      expect(relativeError(got.losses, want.losses), widths.join(',')).toBeLessThan(1e-12);
      expect(relativeError(got.grad, want.grad), widths.join(',')).toBeLessThan(1e-7);
    }
  });

  it('refuses a label no chunk covered and a chunk that is not whole rows', () => {
    const ce = new ChunkedCrossEntropy([3, 12]);
    ce.add(new Float32Array(20), 0);
    expect(() => ce.losses()).toThrow(/label 12 of row 1 was in no logit chunk/);
    expect(() => ce.add(new Float32Array(5), 10)).toThrow(/does not split into 2 rows/);
  });
});
