/**
 * AIM (activation-informed merging) for the AIM baseline: shrink a delta on the input channels
 * the base model relies on.
 *
 *   new InputMagnitudeAccumulator(d).addRows(rows) … .importance()   s_j = mean |x_j| of base-model inputs
 *   aimScaleInPlace(delta, importance, omega)                         Δ[:, j] *= 1 − s_j·(1 − ω),  s normalised by max s
 *
 * Normalising by the maximum puts s in [0, 1] (the reference does the same). A channel with
 * the largest mean input keeps only ω of its delta; an unused channel keeps all of it.
 * An all-zero importance vector leaves the delta unchanged.
 */
import { DEFAULT_AIM_OMEGA } from '../protocol/settings-defaults.ts';

export class InputMagnitudeAccumulator {
  private readonly sums: Float64Array;
  private rows = 0;

  constructor(readonly dim: number) {
    this.sums = new Float64Array(dim);
  }

  addRows(rows: Float32Array | Float64Array): void {
    if (rows.length % this.dim !== 0) throw new RangeError(`${rows.length} values are not whole rows of ${this.dim}`);
    for (let offset = 0; offset < rows.length; offset += this.dim) {
      for (let j = 0; j < this.dim; j++) this.sums[j] = (this.sums[j] as number) + Math.abs(rows[offset + j] as number);
      this.rows++;
    }
  }

  /** mean |x_j| per input channel (zeros before any row). */
  importance(): Float64Array {
    const count = this.rows;
    return this.sums.map((s) => (count === 0 ? 0 : s / count));
  }
}

export function aimScaleInPlace(delta: Float32Array, importance: Float32Array | Float64Array, omega: number = DEFAULT_AIM_OMEGA): void {
  const dIn = importance.length;
  if (delta.length % dIn !== 0) throw new RangeError(`${delta.length} values are not rows of ${dIn} input channels`);
  let max = 0;
  for (const v of importance) max = Math.max(max, v);
  if (!(max > 0) || !Number.isFinite(max)) return;
  const factors = Float64Array.from(importance, (s) => 1 - (s / max) * (1 - omega));
  for (let offset = 0; offset < delta.length; offset += dIn) {
    for (let j = 0; j < dIn; j++) delta[offset + j] = (delta[offset + j] as number) * (factors[j] as number);
  }
}
