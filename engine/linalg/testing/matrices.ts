/**
 * Seeded test matrices for the eigen-solvers: random symmetric, Gram matrices of random rows
 * (rank-deficient when rows < n, with a few dominant coordinates as activations have), and the
 * residual checks every solver is held to.
 */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) - 0.5;
}

export function randomSymmetric(n: number, seed: number): Float64Array {
  const next = lcg(seed);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) a[i * n + j] = a[j * n + i] = next();
  return a;
}

/** HᵀH of `rows` random rows of n; the first `loud` coordinates are 30× larger. */
export function randomGram(n: number, rows: number, seed: number, loud = 3): Float64Array {
  const next = lcg(seed);
  const h = Float64Array.from({ length: rows * n }, (_, i) => next() * (i % n < loud ? 30 : 1));
  const g = new Float64Array(n * n);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < n; i++) {
      const x = h[r * n + i] as number;
      for (let j = 0; j < n; j++) g[i * n + j] = (g[i * n + j] as number) + x * (h[r * n + j] as number);
    }
  }
  return g;
}

/** max_i ‖A·v_i − λ_i·v_i‖∞ and max |V·Vᵀ − I| over the `count` rows of `vectors`. */
export function eigenResiduals(a: Float64Array, n: number, values: Float64Array, vectors: Float64Array, count: number): { residual: number; orthogonality: number } {
  let residual = 0;
  let orthogonality = 0;
  for (let i = 0; i < count; i++) {
    for (let r = 0; r < n; r++) {
      let av = 0;
      for (let c = 0; c < n; c++) av += (a[r * n + c] as number) * (vectors[i * n + c] as number);
      residual = Math.max(residual, Math.abs(av - (values[i] as number) * (vectors[i * n + r] as number)));
    }
    for (let j = 0; j < count; j++) {
      let dot = 0;
      for (let c = 0; c < n; c++) dot += (vectors[i * n + c] as number) * (vectors[j * n + c] as number);
      orthogonality = Math.max(orthogonality, Math.abs(dot - (i === j ? 1 : 0)));
    }
  }
  return { residual, orthogonality };
}
