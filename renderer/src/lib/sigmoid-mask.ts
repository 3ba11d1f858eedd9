/** What the UI sums up of the GSP mask (the mask itself, w = maskWeight, is the protocol's: engine/protocol/gsp-mask.ts). */
import { maskWeight } from '../protocol.ts';

/** Σ w_i: how many directions the mask effectively removes. */
export function removedDirections(ratios: ArrayLike<number>, tau: number, steepness: number): number {
  let sum = 0;
  for (let i = 0; i < ratios.length; i++) sum += maskWeight(ratios[i] ?? 0, tau, steepness);
  return sum;
}
