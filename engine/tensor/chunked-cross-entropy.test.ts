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

/** Columns start…start+size−1 of row-major logits, vocab-major [size, rows] as the head hands them over. */
function vocabMajor(logits: Float32Array, rows: number, start: number, size: number): Float32Array {
  const width = logits.length / rows;
  const out = new Float32Array(rows * size);
  for (let j = 0; j < size; j++) for (let r = 0; r < rows; r++) out[j * rows + r] = logits[r * width + start + j] as number;
  return out;
}

function chunksOf(widths: readonly number[]): { start: number; size: number }[] {
  return widths.map((size, i) => ({ start: widths.slice(0, i).reduce((a, b) => a + b, 0), size }));
}

/** Runs add over chunks of the given widths, then gradient over them again; the gradient back in row-major. */
function chunked(logits: Float32Array, labels: readonly number[], weights: readonly number[], widths: readonly number[]): { losses: Float64Array; grad: Float32Array } {
  const rows = labels.length;
  const width = logits.length / rows;
  const chunks = chunksOf(widths);
  const ce = new ChunkedCrossEntropy(labels);
  for (const c of chunks) ce.add(vocabMajor(logits, rows, c.start, c.size), c.start);
  const grad = new Float32Array(logits.length);
  for (const c of chunks) {
    const g = ce.gradient(vocabMajor(logits, rows, c.start, c.size), c.start, weights);
    for (let j = 0; j < c.size; j++) for (let r = 0; r < rows; r++) grad[r * width + c.start + j] = g[j * rows + r] as number;
  }
  return { losses: ce.losses(), grad };
}

/** d(Σ w·CE)/dx for logits z = W·x (W [vocab, hidden]) from a float64 gradient of the logits. */
function inputGradient(grad: ArrayLike<number>, head: Float32Array, rows: number): Float64Array {
  const vocab = grad.length / rows;
  const hidden = head.length / vocab;
  const out = new Float64Array(rows * hidden);
  for (let r = 0; r < rows; r++) for (let j = 0; j < vocab; j++) for (let k = 0; k < hidden; k++) out[r * hidden + k] = (out[r * hidden + k] as number) + (grad[r * vocab + j] as number) * (head[j * hidden + k] as number);
  return out;
}

/** The one-pass path: addWithExps and foldProduct per chunk (the product rounded to float32, as the backend returns it), then inputGradient. */
function onePass(logits: Float32Array, labels: readonly number[], weights: readonly number[], head: Float32Array, widths: readonly number[]): { losses: Float64Array; dx: Float32Array } {
  const rows = labels.length;
  const hidden = head.length / (logits.length / rows);
  const ce = new ChunkedCrossEntropy(labels);
  for (const c of chunksOf(widths)) {
    const exps = new Float32Array(rows * c.size);
    ce.addWithExps(vocabMajor(logits, rows, c.start, c.size), c.start, exps);
    const product = new Float32Array(rows * hidden);
    for (let r = 0; r < rows; r++) {
      for (let k = 0; k < hidden; k++) {
        let sum = 0;
        for (let j = 0; j < c.size; j++) sum += (exps[r * c.size + j] as number) * (head[(c.start + j) * hidden + k] as number);
        product[r * hidden + k] = sum;
      }
    }
    ce.foldProduct(product);
  }
  const labelRows = new Float32Array(rows * hidden);
  labels.forEach((l, r) => labelRows.set(head.subarray(l * hidden, (l + 1) * hidden), r * hidden));
  return { losses: ce.losses(), dx: ce.inputGradient(labelRows, weights) };
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

  it('gives loss and input gradient in one pass, equal to float64, when the target dominates and when maxima rise across chunks', () => {
    const rng = new SeededRandom(8);
    const [vocab, hidden] = [3_000, 16];
    const labels = [2_999, 5, 1_500, 40];
    const logits = new Float32Array(labels.length * vocab).map(() => rng.normal() * 2);
    logits[0 * vocab + 2_999] = 25; // the target dominates, in the last chunk
    logits[2 * vocab + 2_100] = 12; // another token dominates, after the target's chunk
    for (let j = 0; j < vocab; j++) logits[3 * vocab + j] = (logits[3 * vocab + j] as number) + j / 300; // rising maxima
    const head = new Float32Array(vocab * hidden).map(() => rng.normal());
    const weights = [0.25, 0.5, 1, 0.125];
    const want = direct(logits, labels, weights);
    const wantDx = inputGradient(want.grad, head, labels.length);
    for (const widths of [[3_000], [1_000, 1_000, 1_000], [7, 2_000, 993]]) {
      const got = onePass(logits, labels, weights, head, widths);
      expect(relativeError(got.losses, want.losses), widths.join(',')).toBeLessThan(1e-12);
      expect(relativeError(got.dx, wantDx), widths.join(',')).toBeLessThan(1e-6);
      // Row 0's gradient is ~1e-7 of its label row: a float32 (p_label − 1)·W_label would lose it.
      expect(relativeError(got.dx.subarray(0, hidden), wantDx.subarray(0, hidden)), widths.join(',')).toBeLessThan(1e-6);
    }
  });

  it('refuses a label no chunk covered, a chunk that is not whole rows and products out of turn', () => {
    const ce = new ChunkedCrossEntropy([3, 12]);
    ce.add(new Float32Array(20), 0);
    expect(() => ce.losses()).toThrow(/label 12 of row 1 was in no logit chunk/);
    expect(() => ce.add(new Float32Array(5), 10)).toThrow(/does not split into 2 rows/);
    expect(() => ce.foldProduct(new Float32Array(4))).toThrow(/foldProduct without a chunk/);
    ce.addWithExps(new Float32Array(20), 10, new Float32Array(20));
    expect(() => ce.addWithExps(new Float32Array(20), 20, new Float32Array(20))).toThrow(/was not folded/);
  });
});
