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
