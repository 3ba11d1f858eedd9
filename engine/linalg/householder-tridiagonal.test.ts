import { describe, expect, it } from 'vitest';
import { applyQ, reduceToTridiagonal, type Tridiagonal } from './householder-tridiagonal.ts';
import { lcg, randomGram, randomSymmetric } from './testing/matrices.ts';

/**
 * The reference reduction: sytd2's steps one row at a time, the rank-two update and the next
 * product in separate sweeps (the entry-by-entry operations the fused, paired sweep must keep).
 */
function reduceOneRowAtATime(matrix: Float64Array, n: number): Tridiagonal {
  const a = Float64Array.from(matrix);
  const diag = new Float64Array(n);
  const off = new Float64Array(n);
  const tau = new Float64Array(n);
  const p = new Float64Array(n);
  const w = new Float64Array(n);
  const reflect = (j: number): void => {
    const alpha = a[(j + 1) * n + j] as number;
    let tail = 0;
    for (let r = j + 2; r < n; r++) tail += (a[r * n + j] as number) ** 2;
    a[j * n + j + 1] = 1;
    if (tail === 0) {
      off[j] = alpha;
      for (let r = j + 2; r < n; r++) a[j * n + r] = 0;
      return;
    }
    const beta = alpha >= 0 ? -Math.sqrt(alpha * alpha + tail) : Math.sqrt(alpha * alpha + tail);
    tau[j] = (beta - alpha) / beta;
    off[j] = beta;
    for (let r = j + 2; r < n; r++) a[j * n + r] = (a[r * n + j] as number) * (1 / (alpha - beta));
  };
  const product = (from: number): void => {
    const v = (from - 1) * n;
    p.fill(0, from);
    for (let r = from; r < n; r++) {
      let sum = 0;
      for (let c = from; c < r; c++) {
        sum += (a[r * n + c] as number) * (a[v + c] as number);
        p[c] = (p[c] as number) + (a[r * n + c] as number) * (a[v + r] as number);
      }
      p[r] = (p[r] as number) + sum + (a[r * n + r] as number) * (a[v + r] as number);
    }
  };
  diag[0] = a[0] as number;
  reflect(0);
  product(1);
  for (let j = 0; j + 2 < n; j++) {
    const t = tau[j] as number;
    const v = j * n;
    if (t !== 0) {
      let pv = 0;
      for (let r = j + 1; r < n; r++) {
        p[r] = t * (p[r] as number);
        pv += (p[r] as number) * (a[v + r] as number);
      }
      for (let r = j + 1; r < n; r++) w[r] = (p[r] as number) - 0.5 * t * pv * (a[v + r] as number);
      for (let r = j + 1; r < n; r++) {
        const at = r * n + j + 1;
        a[at] = (a[at] as number) - ((a[v + r] as number) * (w[j + 1] as number) + (w[r] as number) * (a[v + j + 1] as number));
      }
    }
    diag[j + 1] = a[(j + 1) * n + j + 1] as number;
    if (j + 3 < n) reflect(j + 1);
    else off[j + 1] = a[(j + 2) * n + j + 1] as number;
    if (t !== 0) {
      for (let r = j + 2; r < n; r++) {
        for (let c = j + 2; c < r; c++) a[r * n + c] = (a[r * n + c] as number) - ((a[v + r] as number) * (w[c] as number) + (w[r] as number) * (a[v + c] as number));
        a[r * n + r] = (a[r * n + r] as number) - 2 * (a[v + r] as number) * (w[r] as number);
      }
    }
    if (j + 3 < n) product(j + 2);
  }
  diag[n - 1] = a[n * n - 1] as number;
  return { n, diag, off, reflectors: a, tau };
}

/** Two random symmetric blocks on the diagonal, uncoupled: reflectors at the seam are the identity. */
function blockDiagonal(n: number, seed: number): Float64Array {
  const half = n >> 1;
  const a = randomSymmetric(n, seed);
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (r < half !== c < half) a[r * n + c] = 0;
  return a;
}

/** Whether two arrays hold the same bits (−0 and 0 told apart). */
const sameBits = (x: Float64Array, y: Float64Array): boolean => x.length === y.length && x.every((e, i) => Object.is(e, y[i]));

/** The reference: applyQ as first written, one row at a time, reflector by reflector. */
function applyQOneRowAtATime(t: Tridiagonal, vectors: Float64Array, count: number): void {
  const { n, reflectors, tau } = t;
  for (let j = n - 3; j >= 0; j--) {
    const tj = tau[j] as number;
    if (tj === 0) continue;
    const v = j * n;
    for (let k = 0; k < count; k++) {
      const y = k * n;
      let dot = 0;
      for (let r = j + 1; r < n; r++) dot += (reflectors[v + r] as number) * (vectors[y + r] as number);
      const f = tj * dot;
      for (let r = j + 1; r < n; r++) vectors[y + r] = (vectors[y + r] as number) - f * (reflectors[v + r] as number);
    }
  }
}

/** max |Q·T·Qᵀ − A| and max |Q·Qᵀ − I|, with Q's columns from applyQ on the identity. */
function reconstruction(a: Float64Array, n: number): { error: number; orthogonality: number } {
  const t = reduceToTridiagonal(a, n);
  const columns = new Float64Array(n * n); // row k = Q·e_k = column k of Q
  for (let k = 0; k < n; k++) columns[k * n + k] = 1;
  applyQ(t, columns, n);
  const q = (r: number, c: number) => columns[c * n + r] as number;
  const tri = (r: number, c: number) => (r === c ? (t.diag[r] as number) : Math.abs(r - c) === 1 ? (t.off[Math.min(r, c)] as number) : 0);
  let error = 0;
  let orthogonality = 0;
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      let sum = 0;
      let qq = 0;
      for (let i = 0; i < n; i++) {
        qq += q(r, i) * q(c, i);
        for (let j = Math.max(0, i - 1); j <= Math.min(n - 1, i + 1); j++) sum += q(r, i) * tri(i, j) * q(c, j);
      }
      error = Math.max(error, Math.abs(sum - (a[r * n + c] as number)));
      orthogonality = Math.max(orthogonality, Math.abs(qq - (r === c ? 1 : 0)));
    }
  }
  return { error, orthogonality };
}

describe('reduceToTridiagonal + applyQ', () => {
  it('reconstructs A = Q·T·Qᵀ with orthogonal Q on random and rank-deficient matrices', () => {
    for (const n of [1, 2, 3, 4, 9, 31]) {
      const { error, orthogonality } = reconstruction(randomSymmetric(n, n + 1), n);
      expect(error).toBeLessThan(1e-14);
      expect(orthogonality).toBeLessThan(1e-14);
    }
    const gram = randomGram(24, 5, 2); // rank 5: most reflectors meet zero columns late on
    const scale = Math.max(...gram.map(Math.abs));
    expect(reconstruction(gram, 24).error / scale).toBeLessThan(1e-14);
  });

  it('leaves an already tridiagonal matrix as it is (every reflector the identity)', () => {
    const n = 5;
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      a[i * n + i] = i + 1;
      if (i > 0) a[i * n + i - 1] = a[(i - 1) * n + i] = 0.5;
    }
    const t = reduceToTridiagonal(a, n);
    expect(Array.from(t.diag)).toEqual([1, 2, 3, 4, 5]);
    expect(Array.from(t.off.subarray(0, n - 1)).map(Math.abs)).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(reconstruction(a, n).error).toBeLessThan(1e-15);
  });

  it('reduceToTridiagonal gives the same bits as the one-row-at-a-time reference, for odd and even trailing sizes', () => {
    for (const n of [3, 4, 17, 32, 45]) {
      for (const a of [randomSymmetric(n, n + 7), randomGram(n, Math.ceil(n / 4), n), blockDiagonal(n, n)]) {
        const fused = reduceToTridiagonal(a, n);
        const reference = reduceOneRowAtATime(a, n);
        for (const key of ['diag', 'off', 'tau', 'reflectors'] as const) expect(sameBits(fused[key], reference[key]), `${key} at n = ${n}`).toBe(true);
      }
    }
  });

  it('a block-diagonal matrix has identity reflectors between non-identity ones (what applyQ must skip)', () => {
    const tau = Array.from(reduceToTridiagonal(blockDiagonal(37, 3), 37).tau.subarray(0, 35));
    expect(tau.some((x) => x === 0) && tau.slice(0, 10).some((x) => x !== 0) && tau.slice(25).some((x) => x !== 0)).toBe(true);
  });

  it('applyQ gives the same bits as the one-row-at-a-time reference, for counts that are and are not multiples of four', () => {
    for (const [n, count, seed] of [[37, 9, 3], [64, 16, 4], [50, 7, 5], [5, 3, 6]] as const) {
      for (const a of [randomSymmetric(n, seed), randomGram(n, Math.ceil(n / 3), seed), blockDiagonal(n, seed)]) {
        const t = reduceToTridiagonal(a, n);
        const next = lcg(seed + 100);
        const grouped = Float64Array.from({ length: count * n }, next);
        const reference = Float64Array.from(grouped);
        applyQ(t, grouped, count);
        applyQOneRowAtATime(t, reference, count);
        expect(grouped).not.toEqual(Float64Array.from({ length: count * n }, lcg(seed + 100)));
        expect(sameBits(grouped, reference)).toBe(true);
      }
    }
  });

  it('rejects a matrix of the wrong size', () => {
    expect(() => reduceToTridiagonal(new Float64Array(5), 2)).toThrow(/expected 2×2/);
  });
});
