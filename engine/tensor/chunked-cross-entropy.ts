/**
 * Cross-entropy of logit rows that arrive in vocab chunks (columns start…start+width−1 of every
 * row at a time), accumulated in float64 in plain JS. The runtime's head feeds it so that no
 * [rows, vocab] logits exist at once, and because tfjs-backend-wasm's float32 Sum adds the
 * terms one by one: after the dominant exp(z_max − max) = 1 every term below half an ulp of 1
 * is dropped, so with a 151,936-token vocab and one logit 20 above the rest the softmax
 * denominator comes out as exactly 1 and the target's gradient p − 1 as 0.
 *
 *   const ce = new ChunkedCrossEntropy(labels);
 *   for each chunk: ce.add(logits, start)            pass 1: running max and Σ exp(z − max)
 *   ce.losses()                                      log Σ exp(z) − z_label per row
 *   for each chunk: ce.gradient(logits, start, w)    pass 2: d(Σ w_r·CE_r)/d logits, float32
 *
 * The target's gradient is −w·Σ_{j≠label} p_j, from the float64 sum minus the target's own
 * term, rather than p_label − 1 in float32 (which cancels to nothing when p_label ≈ 1).
 */
export class ChunkedCrossEntropy {
  private readonly max: Float64Array;
  private readonly sum: Float64Array;
  private readonly labelLogit: Float64Array;
  private readonly seen: Uint8Array;

  constructor(readonly labels: readonly number[]) {
    this.max = new Float64Array(labels.length).fill(-Infinity);
    this.sum = new Float64Array(labels.length);
    this.labelLogit = new Float64Array(labels.length).fill(Number.NaN);
    this.seen = new Uint8Array(labels.length);
  }

  /** Folds logits [rows, width] of vocab ids start…start+width−1 into every row's running sums. */
  add(logits: Float32Array, start: number): void {
    const width = this.widthOf(logits);
    for (let r = 0; r < this.labels.length; r++) {
      // Indexed loops over the whole array rather than for…of over a subarray per row: the same
      // arithmetic in the same order, without a view and an iterator per row (issue 14 profile).
      const base = r * width;
      let chunkMax = -Infinity;
      for (let j = 0; j < width; j++) {
        const z = logits[base + j] as number;
        if (z > chunkMax) chunkMax = z;
      }
      let max = this.max[r] as number;
      if (chunkMax > max) {
        // Rescale what was summed against the old max (exp(−∞) = 0 on the first chunk).
        this.sum[r] = (this.sum[r] as number) * Math.exp(max - chunkMax);
        this.max[r] = max = chunkMax;
      }
      let sum = 0;
      for (let j = 0; j < width; j++) sum += Math.exp((logits[base + j] as number) - max);
      this.sum[r] = (this.sum[r] as number) + sum;
      const label = (this.labels[r] as number) - start;
      if (label >= 0 && label < width) {
        this.labelLogit[r] = logits[base + label] as number;
        this.seen[r] = 1;
      }
    }
  }

  /** CE of each row, log Σ_j exp(z_j) − z_label; every chunk must have been added. */
  losses(): Float64Array {
    this.assertComplete();
    return this.max.map((max, r) => Math.log(this.sum[r] as number) + max - (this.labelLogit[r] as number));
  }

  /**
   * d(Σ_r weights[r]·CE_r)/d logits for one chunk (the same logits that add() saw), [rows, width].
   */
  gradient(logits: Float32Array, start: number, weights: readonly number[]): Float32Array {
    this.assertComplete();
    const width = this.widthOf(logits);
    const out = new Float32Array(logits.length);
    for (let r = 0; r < this.labels.length; r++) {
      const max = this.max[r] as number;
      const sum = this.sum[r] as number;
      const scale = (weights[r] as number) / sum;
      const base = r * width;
      for (let j = 0; j < width; j++) out[base + j] = scale * Math.exp((logits[base + j] as number) - max);
      const label = (this.labels[r] as number) - start;
      if (label >= 0 && label < width) {
        const others = sum - Math.exp((this.labelLogit[r] as number) - max);
        out[base + label] = -scale * others;
      }
    }
    return out;
  }

  private widthOf(logits: Float32Array): number {
    const width = logits.length / this.labels.length;
    if (!Number.isInteger(width)) throw new RangeError(`logit chunk of ${logits.length} values does not split into ${this.labels.length} rows`);
    return width;
  }

  private assertComplete(): void {
    const missing = this.seen.indexOf(0);
    if (missing >= 0) throw new RangeError(`label ${this.labels[missing]} of row ${missing} was in no logit chunk added so far`);
  }
}
