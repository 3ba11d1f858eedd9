/** ‖got − want‖₂ / ‖want‖₂ in float64: how the numerics tests compare a result with its float64 reference. */
export function relativeError(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < want.length; i++) {
    diff += ((got[i] as number) - (want[i] as number)) ** 2;
    norm += (want[i] as number) ** 2;
  }
  return Math.sqrt(diff / norm);
}

/**
 * max |got − want| / max |want| (floored at 1e-12 so an all-zero reference stays finite): the
 * worst element against the reference's largest, for gradients whose float32 sums run in a
 * different order.
 */
export function maxRelativeError(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let scale = 0;
  let diff = 0;
  for (let i = 0; i < want.length; i++) {
    scale = Math.max(scale, Math.abs(want[i] as number));
    diff = Math.max(diff, Math.abs((got[i] as number) - (want[i] as number)));
  }
  return diff / Math.max(scale, 1e-12);
}
