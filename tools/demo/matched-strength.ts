/**
 * The strength (λ, t or α) at which a merge's measured reasoning gain reaches a target, so merges
 * are compared at the same ΔL_R rather than at their nominal settings (a projected or trimmed
 * edit moves the model less per unit of strength than the whole task vector).
 *
 *   matchStrength(measure, { target, start, max }) → { strength, value, reached, measurements }
 *
 * `measure(s)` is ΔL_R at strength s (negative: lower loss on the Thinking model's reasoning);
 * ΔL_R(0) = 0. The gain is assumed to grow with s but not linearly (the losses curve). From
 * `start`, s doubles until the target is passed (or `max` is measured), then the bracket is
 * narrowed by regula falsi with the Illinois correction until |ΔL_R − target| ≤ tolerance·|target|
 * or `maxMeasurements` are spent; the measurement closest to the target is returned.
 */
export interface StrengthSearch {
  /** ΔL_R to reach (negative). */
  readonly target: number;
  readonly start: number;
  readonly max: number;
  /** Relative: 0.03 accepts ΔL_R within 3% of the target. */
  readonly tolerance?: number;
  readonly maxMeasurements?: number;
}

export interface Measurement {
  readonly strength: number;
  readonly value: number;
}

export interface MatchedStrength extends Measurement {
  /** False when even `max` does not reach the target (the closest point is returned). */
  readonly reached: boolean;
  readonly measurements: readonly Measurement[];
}

export async function matchStrength(measure: (strength: number) => Promise<number>, search: StrengthSearch): Promise<MatchedStrength> {
  const { target, max } = search;
  if (!(target < 0) || !(search.start > 0) || !(max >= search.start)) throw new RangeError(`a strength search needs target < 0 and 0 < start ≤ max (got ${target}, ${search.start}, ${max})`);
  const tolerance = Math.abs(target) * (search.tolerance ?? 0.03);
  const budget = search.maxMeasurements ?? 8;
  const measurements: Measurement[] = [];
  const at = async (strength: number): Promise<Measurement> => {
    const point = { strength, value: await measure(strength) };
    measurements.push(point);
    return point;
  };
  const done = (reached: boolean): MatchedStrength => {
    const best = measurements.reduce((a, b) => (Math.abs(b.value - target) < Math.abs(a.value - target) ? b : a));
    return { ...best, reached, measurements };
  };

  let below: Measurement = { strength: 0, value: 0 };
  let above = await at(search.start);
  while (above.value > target) {
    if (above.strength >= max || measurements.length >= budget) return done(false);
    below = above;
    above = await at(Math.min(max, above.strength * 2));
  }
  // below.value > target ≥ above.value; Illinois: halve the weight of an end kept twice in a row.
  let [weightBelow, weightAbove] = [1, 1];
  let kept: 'below' | 'above' | null = null;
  while (Math.abs(above.value - target) > tolerance && measurements.length < budget) {
    const [fb, fa] = [(below.value - target) * weightBelow, (above.value - target) * weightAbove];
    const point = await at(below.strength + (above.strength - below.strength) * (fb / (fb - fa)));
    if (Math.abs(point.value - target) <= tolerance) break;
    if (point.value > target) {
      below = point;
      [weightBelow, weightAbove] = [1, kept === 'above' ? weightAbove / 2 : 1];
      kept = 'above';
    } else {
      above = point;
      [weightBelow, weightAbove] = [kept === 'below' ? weightBelow / 2 : 1, 1];
      kept = 'below';
    }
  }
  return done(true);
}
