/**
 * The retained update-norm fraction per block for the preview (preview-layers.ts):
 *   retained(block) = (Σ_e ‖U‖²_e − Σ_e Σ_i (2w_{p,i} − w_{p,i}²)·n_{e,i}) / Σ_e ‖U‖²_e   (1 where U = 0)
 * with n_{e,i} = ‖U V_i‖² (tensor-moments.ts) and w the mask of entry e's projector p.
 *
 *   const retained = new RetainedFractions(coefficients, entryProjector, coarseBlockOf, rankOf);
 *   retained.at(kind, entryBlock, count, normWeights) → Float64Array   per block
 *
 * At coarse granularity the n are summed per (coarse block, projector) once per update kind, so
 * a τ/k change costs (pairs × r); at fine granularity each entry is its own block and the n are
 * read from one contiguous array per kind (entries × r, one value each, not the MOMENTS stride).
 */
import type { PreviewCoefficients } from './preview-coefficients.ts';
import { pairUp, weightedSum, type EntryPairs } from './preview-pairs.ts';
import { MOMENTS, NORM, type RAW, type THRESHOLDED } from './tensor-moments.ts';

/** Which update the moments are of: T(δ) or raw δ (the threshold toggle). */
export type UpdateKind = typeof THRESHOLDED | typeof RAW;

export class RetainedFractions {
  private readonly coarsePairs: EntryPairs;
  private readonly coarseSums = new Map<UpdateKind, Float64Array>();
  private readonly fineValues = new Map<UpdateKind, Float64Array>();

  constructor(private readonly coefficients: PreviewCoefficients, private readonly entryProjector: Int32Array, private readonly coarseBlockOf: Int32Array, rankOf: (projector: number) => number) {
    this.coarsePairs = pairUp(entryProjector, coarseBlockOf, rankOf);
  }

  /** Per block of `entryBlock` (coarse when it is `coarseBlockOf`, else one block per fine slot). */
  at(kind: UpdateKind, entryBlock: Int32Array, count: number, normWeights: readonly Float64Array[]): Float64Array {
    const { scalars, entries } = this.coefficients;
    const norm = new Float64Array(count);
    const removed = new Float64Array(count);
    for (let e = 0; e < entryBlock.length; e++) {
      const block = entryBlock[e] as number;
      norm[block] = (norm[block] as number) + (scalars[e * MOMENTS + kind + NORM] as number);
    }
    if (entryBlock === this.coarseBlockOf) {
      const sums = this.coarseNormSums(kind);
      const { pairKey, pairProjector, pairOffset } = this.coarsePairs;
      for (let pair = 0; pair < pairKey.length; pair++) {
        const block = pairKey[pair] as number;
        removed[block] = (removed[block] as number) + weightedSum(normWeights[pairProjector[pair] as number] as Float64Array, sums, pairOffset[pair] as number);
      }
    } else {
      const values = this.fineNormValues(kind);
      for (let e = 0; e < entryBlock.length; e++) {
        const p = this.entryProjector[e] as number;
        if (p < 0) continue;
        const block = entryBlock[e] as number;
        removed[block] = (removed[block] as number) + weightedSum(normWeights[p] as Float64Array, values, (entries[e] as { directionOffset: number }).directionOffset);
      }
    }
    return norm.map((n, b) => (n > 0 ? (n - (removed[b] as number)) / n : 1));
  }

  /** n summed per (coarse block, projector) pair: fixed for the analysis, built once per kind. */
  private coarseNormSums(kind: UpdateKind): Float64Array {
    let sums = this.coarseSums.get(kind);
    if (sums !== undefined) return sums;
    const { entryPair, pairOffset } = this.coarsePairs;
    sums = new Float64Array(pairOffset[pairOffset.length - 1] as number);
    const { directions, entries } = this.coefficients;
    for (let e = 0; e < entries.length; e++) {
      const pair = entryPair[e] as number;
      if (pair < 0) continue;
      const { directionOffset, rank } = entries[e] as { directionOffset: number; rank: number };
      const to = pairOffset[pair] as number;
      for (let i = 0; i < rank; i++) sums[to + i] = (sums[to + i] as number) + (directions[(directionOffset + i) * MOMENTS + kind + NORM] as number);
    }
    this.coarseSums.set(kind, sums);
    return sums;
  }

  /** n of every direction, contiguous. */
  private fineNormValues(kind: UpdateKind): Float64Array {
    let values = this.fineValues.get(kind);
    if (values !== undefined) return values;
    const { directions } = this.coefficients;
    values = Float64Array.from({ length: directions.length / MOMENTS }, (_, i) => directions[i * MOMENTS + kind + NORM] as number);
    this.fineValues.set(kind, values);
    return values;
  }
}
