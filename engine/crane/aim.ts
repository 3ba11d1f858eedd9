/**
 * AIM (activation-informed merging) for the AIM-TA and AIM-TIES baselines: shrink a delta on the
 * input channels the base model relies on, as the reference's baseline/_aim.py.
 *
 *   new AimImportanceAccumulator() .addSequence(means) … .importance()   s = mean over sequences of (mean over positions of |x|)
 *   aimImportanceOf(importance)(tensorName)                               the vector of `….weight`'s module, or undefined
 *   aimScaleInPlace(delta, importance, omega)                             Δ[:, j] *= 1 − s_j·(1 − ω),  s normalised by max s
 *   isAimMethod(method)                                                    AIM-TA (`aim`) or AIM-TIES (`aim_ties`)
 *
 * Normalising by the maximum puts s in [0, 1] (the reference does the same). A channel with
 * the largest mean input keeps only ω of its delta; an unused channel keeps all of it.
 * An all-zero (or non-finite) importance vector leaves the delta unchanged. Tensors that are not
 * a Linear's weight (names with embed_tokens, norm, rotary or bias, or not ending in .weight)
 * get no vector, as the reference skips them; so does a module the importance file lacks.
 */
import { DEFAULT_AIM_OMEGA } from '../protocol/settings-defaults.ts';

/** The reference averages each sequence's mean first, so a long prompt weighs as much as a short one. */
export class AimImportanceAccumulator {
  private readonly sums = new Map<string, Float64Array>();
  private readonly counts = new Map<string, number>();

  addSequence(means: ReadonlyMap<string, ArrayLike<number>>): void {
    for (const [module, mean] of means) {
      let sum = this.sums.get(module);
      if (sum === undefined) {
        sum = new Float64Array(mean.length);
        this.sums.set(module, sum);
      }
      if (sum.length !== mean.length) throw new RangeError(`${module}: ${mean.length} input channels after ${sum.length}`);
      for (let j = 0; j < sum.length; j++) sum[j] = (sum[j] as number) + (mean[j] as number);
      this.counts.set(module, (this.counts.get(module) ?? 0) + 1);
    }
  }

  /** module name → mean over the sequences that reached it. */
  importance(): Map<string, Float64Array> {
    return new Map([...this.sums].map(([module, sum]) => {
      const count = this.counts.get(module) ?? 1;
      return [module, sum.map((s) => s / count)];
    }));
  }
}

export function isAimMethod<M extends { readonly method: string }>(m: M): m is Extract<M, { readonly method: 'aim' | 'aim_ties' }> {
  return m.method === 'aim' || m.method === 'aim_ties';
}

const NOT_LINEAR = ['embed_tokens', 'norm', 'rotary', 'bias'];

export function aimImportanceOf(importance: ReadonlyMap<string, Float32Array | Float64Array>): (name: string) => Float32Array | Float64Array | undefined {
  return (name) => {
    if (!name.endsWith('.weight') || NOT_LINEAR.some((s) => name.includes(s))) return undefined;
    return importance.get(name.slice(0, -'.weight'.length));
  };
}

export function aimScaleInPlace(delta: Float32Array, importance: Float32Array | Float64Array, omega: number = DEFAULT_AIM_OMEGA): void {
  const dIn = importance.length;
  if (delta.length % dIn !== 0) throw new RangeError(`${delta.length} values are not rows of ${dIn} input channels`);
  let max = -Infinity;
  for (const v of importance) max = Math.max(max, v);
  if (!(max > 0) || !Number.isFinite(max)) return;
  const factors = Float64Array.from(importance, (s) => 1 - (s / max) * (1 - omega));
  for (let offset = 0; offset < delta.length; offset += dIn) {
    for (let j = 0; j < dIn; j++) delta[offset + j] = (delta[offset + j] as number) * (factors[j] as number);
  }
}
