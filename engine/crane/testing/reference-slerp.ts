/**
 * The SLERP baseline of the reference (baseline/slerp.py, slerp_tensor) written step by step as
 * that script does it, in plain loops, for cross-checking engine/crane/slerp.ts: rows (1-D = one
 * row), unit rows u = v / max(‖v‖, eps), cos Ω = Σ u₁u₂ clamped to [−1, 1], direction
 * c₁u₁ + c₂u₂ with c = sin(·Ω) / max(sin Ω, eps), times (1−t)‖v₁‖ + t‖v₂‖; the raw lerp where
 * |sin Ω| < 1e-3 or a norm is below eps.
 */
const EPS = 1e-8;

export function referenceSlerpTensor(v1: readonly number[], v2: readonly number[], shape: readonly number[], t: number): number[] {
  const rows = shape.length <= 1 ? 1 : (shape[0] as number);
  const dim = rows === 0 ? 0 : v1.length / rows;
  const result: number[] = [];
  for (let r = 0; r < rows; r++) {
    const row1 = v1.slice(r * dim, (r + 1) * dim);
    const row2 = v2.slice(r * dim, (r + 1) * dim);
    result.push(...referenceSlerpRow(row1, row2, t));
  }
  return result;
}

function referenceSlerpRow(row1: readonly number[], row2: readonly number[], t: number): number[] {
  const n1 = Math.sqrt(row1.reduce((s, x) => s + x * x, 0));
  const n2 = Math.sqrt(row2.reduce((s, x) => s + x * x, 0));
  const unit1 = row1.map((x) => x / Math.max(n1, EPS));
  const unit2 = row2.map((x) => x / Math.max(n2, EPS));
  let cosOmega = 0;
  for (let i = 0; i < row1.length; i++) cosOmega += (unit1[i] as number) * (unit2[i] as number);
  cosOmega = Math.min(1, Math.max(-1, cosOmega));
  const omega = Math.acos(cosOmega);
  const sinOmega = Math.sin(omega);
  const unstable = Math.abs(sinOmega) < 1e-3 || n1 < EPS || n2 < EPS;
  if (unstable) return row1.map((x, i) => (1 - t) * x + t * (row2[i] as number));
  const c1 = Math.sin((1 - t) * omega) / Math.max(sinOmega, EPS);
  const c2 = Math.sin(t * omega) / Math.max(sinOmega, EPS);
  const norm = (1 - t) * n1 + t * n2;
  return unit1.map((u, i) => (c1 * u + c2 * (unit2[i] as number)) * norm);
}
