/**
 * Entries grouped by (key, projector) for the preview's sums (preview-layers.ts: key = tensor
 * group, for the slopes; preview-retained.ts: key = coarse block, for the retained fractions):
 * every entry of a pair shares its projector's mask, so a sum over the pair's entries can be
 * taken once and weighted by the mask per call.
 *
 *   pairUp(entryProjector, entryKey, rankOf) → EntryPairs
 */
export interface EntryPairs {
  /** Per entry its pair; −1 for an unprojected entry. */
  readonly entryPair: Int32Array;
  readonly pairKey: Int32Array;
  readonly pairProjector: Int32Array;
  /** Each pair's offset into an array of one r-vector per pair; one more value: the total. */
  readonly pairOffset: Int32Array;
}

export function pairUp(entryProjector: Int32Array, entryKey: Int32Array, rankOf: (projector: number) => number): EntryPairs {
  const index = new Map<string, number>();
  const pairKey: number[] = [];
  const pairProjector: number[] = [];
  const entryPair = Int32Array.from(entryProjector, (p, e) => {
    if (p < 0) return -1;
    const id = `${entryKey[e]} ${p}`;
    let pair = index.get(id);
    if (pair === undefined) {
      pair = pairKey.length;
      index.set(id, pair);
      pairKey.push(entryKey[e] as number);
      pairProjector.push(p);
    }
    return pair;
  });
  const pairOffset = new Int32Array(pairKey.length + 1);
  pairProjector.forEach((p, pair) => { pairOffset[pair + 1] = (pairOffset[pair] as number) + rankOf(p); });
  return { entryPair, pairKey: Int32Array.from(pairKey), pairProjector: Int32Array.from(pairProjector), pairOffset };
}

/** Σ_i w_i·values[offset + i]. */
export function weightedSum(w: Float64Array, values: Float64Array, offset: number): number {
  let sum = 0;
  for (let i = 0; i < w.length; i++) sum += (w[i] as number) * (values[offset + i] as number);
  return sum;
}
