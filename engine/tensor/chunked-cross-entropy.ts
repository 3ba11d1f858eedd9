/**
 * Cross-entropy of logit rows that arrive in vocab chunks, accumulated in float64 in plain JS.
 * A chunk holds vocab ids start…start+width−1 of every row, vocab-major: [width, rows], the
 * layout the head's (W_chunk · normedᵀ) product comes out in, read without a transpose.
 * The runtime's head feeds it so that no [rows, vocab] logits exist at once, and because
 * tfjs-backend-wasm's float32 Sum adds the terms one by one: after the dominant
 * exp(z_max − max) = 1 every term below half an ulp of 1 is dropped, so with a 151,936-token
 * vocab and one logit 20 above the rest the softmax denominator comes out as exactly 1 and the
 * target's gradient p − 1 as 0.
 *
 * Loss and input gradient in ONE pass over the chunks (d CE / d x for logits z = W·x):
 *
 *   const ce = new ChunkedCrossEntropy(labels);
 *   for each chunk: ce.addWithExps(logits, start, exps)      running max, Σ exp(z − max), and
 *                   ce.foldProduct(exps · W_chunk)           Σ_{j≠label} exp(z_j − max)·W_j
 *   ce.losses()                                              log Σ exp(z) − z_label per row
 *   ce.inputGradient(W_label rows, w)                        d(Σ w_r·CE_r)/d x, float32
 *
 * A rising max rescales the float64 sums already folded, so no chunk is seen twice. The
 * target's own term stays out of the product (`exps` is 0 there): inside one float32 dot product
 * it would be the large running sum that every small p_j·W_j is rounded against; it enters as
 * −Σ_{j≠label} p_j · W_label, from the float64 sum minus the target's own term, rather than
 * (p_label − 1)·W_label in float32 (which cancels to nothing when p_label ≈ 1).
 *
 * `add` (loss only) and `gradient` (d/d logits of a chunk, after every chunk was added: what the
 * lm_head gradient needs, in a second pass) serve callers that want no input gradient.
 */
export class ChunkedCrossEntropy {
  private readonly max: Float64Array;
  private readonly sum: Float64Array;
  private readonly labelLogit: Float64Array;
  private readonly seen: Uint8Array;
  /** Per-row scratch: this chunk's max, then its Σ exp. */
  private readonly chunkMax: Float64Array;
  private readonly chunkSum: Float64Array;
  /** Σ_{j≠label} exp(z_j − max)·W_j per row, [rows · hidden], from the first foldProduct on. */
  private product: Float64Array | undefined;
  /** addWithExps was called and its product not folded yet. */
  private pendingProduct = false;

  constructor(readonly labels: readonly number[]) {
    const rows = labels.length;
    this.max = new Float64Array(rows).fill(-Infinity);
    this.sum = new Float64Array(rows);
    this.labelLogit = new Float64Array(rows).fill(Number.NaN);
    this.seen = new Uint8Array(rows);
    this.chunkMax = new Float64Array(rows);
    this.chunkSum = new Float64Array(rows);
  }

  /** Folds vocab-major logits [width, rows] of vocab ids start…start+width−1 into every row's running max and sum. */
  add(logits: Float32Array, start: number): void {
    this.fold(logits, start, undefined);
  }

  /**
   * add(), writing exp(z − max) of the chunk into `exps` in row-major [rows, width] (the max being
   * the row's running max after this chunk), 0 at each row's label: the left operand of the
   * product that foldProduct takes next. `exps` is the caller's, reused across chunks.
   */
  addWithExps(logits: Float32Array, start: number, exps: Float32Array): void {
    if (this.pendingProduct) throw new Error('internal: the previous chunk\'s product was not folded');
    if (exps.length !== logits.length) throw new RangeError(`exps of ${exps.length} values for a chunk of ${logits.length}`);
    this.fold(logits, start, exps);
    this.pendingProduct = true;
  }

  /** Adds exps · W_chunk, [rows, hidden], of the chunk last given to addWithExps. */
  foldProduct(product: Float32Array): void {
    if (!this.pendingProduct) throw new Error('internal: foldProduct without a chunk from addWithExps');
    this.pendingProduct = false;
    const sums = (this.product ??= new Float64Array(product.length));
    if (sums.length !== product.length) throw new RangeError(`product of ${product.length} values does not match the ${sums.length} folded so far`);
    for (let i = 0; i < product.length; i++) sums[i] = (sums[i] as number) + (product[i] as number);
  }

  /** CE of each row, log Σ_j exp(z_j) − z_label; every chunk must have been added. */
  losses(): Float64Array {
    this.assertComplete();
    return this.max.map((max, r) => Math.log(this.sum[r] as number) + max - (this.labelLogit[r] as number));
  }

  /**
   * d(Σ_r weights[r]·CE_r)/d x, [rows, hidden], for logits z = W·x, from the folded products and
   * each row's label row of W (`labelRows`, [rows, hidden]).
   */
  inputGradient(labelRows: Float32Array, weights: readonly number[]): Float32Array {
    this.assertComplete();
    const sums = this.product;
    if (sums === undefined || this.pendingProduct) throw new Error('internal: inputGradient before every chunk\'s product was folded');
    if (labelRows.length !== sums.length) throw new RangeError(`label rows of ${labelRows.length} values do not match the product's ${sums.length}`);
    const hidden = sums.length / this.labels.length;
    const out = new Float32Array(sums.length);
    for (let r = 0; r < this.labels.length; r++) {
      const sum = this.sum[r] as number;
      const scale = (weights[r] as number) / sum;
      const others = sum - Math.exp((this.labelLogit[r] as number) - (this.max[r] as number));
      const base = r * hidden;
      for (let k = 0; k < hidden; k++) out[base + k] = scale * ((sums[base + k] as number) - others * (labelRows[base + k] as number));
    }
    return out;
  }

  /**
   * d(Σ_r weights[r]·CE_r)/d logits for one vocab-major chunk [width, rows] (the same logits
   * that add() saw), in the same layout; every chunk must have been added.
   */
  gradient(logits: Float32Array, start: number, weights: readonly number[]): Float32Array {
    this.assertComplete();
    const rows = this.labels.length;
    const width = this.widthOf(logits);
    const scale = Float64Array.from(this.sum, (sum, r) => (weights[r] as number) / sum);
    const out = new Float32Array(logits.length);
    for (let j = 0; j < width; j++) {
      const base = j * rows;
      for (let r = 0; r < rows; r++) out[base + r] = (scale[r] as number) * Math.exp((logits[base + r] as number) - (this.max[r] as number));
    }
    for (let r = 0; r < rows; r++) {
      const label = (this.labels[r] as number) - start;
      if (label < 0 || label >= width) continue;
      const others = (this.sum[r] as number) - Math.exp((this.labelLogit[r] as number) - (this.max[r] as number));
      out[label * rows + r] = -(scale[r] as number) * others;
    }
    return out;
  }

  /**
   * One chunk into the running sums. Per row the float64 sum runs over j in order and is added
   * as one partial, as the earlier row-major loops did: the same losses to the last bit.
   */
  private fold(logits: Float32Array, start: number, exps: Float32Array | undefined): void {
    const rows = this.labels.length;
    const width = this.widthOf(logits);
    const { chunkMax, chunkSum } = this;
    chunkMax.fill(-Infinity);
    for (let j = 0; j < width; j++) {
      const base = j * rows;
      for (let r = 0; r < rows; r++) {
        const z = logits[base + r] as number;
        if (z > (chunkMax[r] as number)) chunkMax[r] = z;
      }
    }
    for (let r = 0; r < rows; r++) {
      const max = this.max[r] as number;
      if ((chunkMax[r] as number) > max) {
        // Rescale what was summed against the old max (exp(−∞) = 0 on the first chunk).
        const factor = Math.exp(max - (chunkMax[r] as number));
        this.sum[r] = (this.sum[r] as number) * factor;
        this.rescaleProduct(r, factor);
        this.max[r] = chunkMax[r] as number;
      }
    }
    chunkSum.fill(0);
    for (let j = 0; j < width; j++) {
      const base = j * rows;
      for (let r = 0; r < rows; r++) {
        const e = Math.exp((logits[base + r] as number) - (this.max[r] as number));
        chunkSum[r] = (chunkSum[r] as number) + e;
        if (exps !== undefined) exps[r * width + j] = e;
      }
    }
    for (let r = 0; r < rows; r++) {
      this.sum[r] = (this.sum[r] as number) + (chunkSum[r] as number);
      const label = (this.labels[r] as number) - start;
      if (label >= 0 && label < width) {
        this.labelLogit[r] = logits[label * rows + r] as number;
        this.seen[r] = 1;
        if (exps !== undefined) exps[r * width + label] = 0;
      }
    }
  }

  private rescaleProduct(row: number, factor: number): void {
    const sums = this.product;
    if (sums === undefined) return;
    const hidden = sums.length / this.labels.length;
    for (let k = row * hidden; k < (row + 1) * hidden; k++) sums[k] = (sums[k] as number) * factor;
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
