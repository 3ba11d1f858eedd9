/**
 * Stage 3 of CRANE, input: the Gram matrix HᵀH of captured activation rows, streamed.
 *
 *   const gram = new GramAccumulator(d);
 *   gram.addRows(rows);            // row-major chunk of captured rows (N_chunk × d), fp32 or fp64
 *   gram.addGram(partial, count);  // or a chunk's HᵀH computed elsewhere (e.g. a GPU matmul)
 *   gram.gram()                    // full symmetric d×d, float64
 *   gram.keptRows()                // H itself (rowCount × d, float64) while it has ≤ d/4 rows
 *   gram.snapshot() → GramSnapshot // plain, transferable: what a solve needs (kept rows or the Gram)
 *   GramAccumulator.fromSnapshot(s) // an accumulator giving the same keptRows() / gram(), bit for bit
 *
 * Not mean-centred (the spec): directions are those of the raw activations, so a large common
 * offset is itself a protected direction. Rows are buffered column-wise and flushed in blocks:
 * each flush touches the d×d accumulator once per block instead of once per row, which keeps
 * a 2048-wide accumulation memory-friendly.
 *
 * Small samples (a few chats' format positions) also keep their rows, up to d/4 of them (a
 * quarter of the Gram's own memory): GSP then solves from H directly (linalg/thin-gram-eigen.ts,
 * ~10× faster at 100 rows of 1024). Past d/4 rows, or once a partial Gram arrives without its
 * rows, they are dropped. Until then neither the Gram nor its block buffer exists (d² + 256·d
 * float64, 10 MB at d = 1024; the buffer is allocated with the first row buffered, the Gram's
 * pages resident once a block is flushed): the kept rows are all there is, replayed through the same
 * blocks (so the Gram is bit-identical) only when the Gram is asked for or the rows outgrow d/4.
 * The projectors stage holds one accumulator per layer and key (56 at 28 layers) and, with a
 * few chats, never asks for a Gram.
 */

const ROWS_PER_FLUSH = 256;

/**
 * An accumulator's state as plain arrays (structured-cloneable, its buffers transferable), for a
 * solve on another thread: the kept rows while there are any, else the Gram's upper triangle.
 */
export type GramSnapshot =
  | { readonly dim: number; readonly rowCount: number; readonly rows: Float64Array }
  | { readonly dim: number; readonly rowCount: number; readonly upper: Float64Array };

/** The Gram's upper triangle (of a d×d array) and the block of rows not yet added to it. */
interface GramBlocks {
  readonly upper: Float64Array;
  /**
   * Buffered rows, transposed: column c of the block is buffer[c*ROWS_PER_FLUSH ..]. Allocated
   * with the first row buffered: a Gram built from partial Grams or a snapshot may never need it.
   */
  buffer?: Float64Array;
}

export class GramAccumulator {
  /** Allocated once the Gram is needed (blocks()); until then every row is in `kept`. */
  private sums: GramBlocks | undefined;
  private buffered = 0;
  private total = 0;
  /** Copies of the rows seen, while every row is known and there are at most maxKeptRows. */
  private kept: Float64Array[] | null = [];
  private readonly maxKeptRows: number;

  constructor(readonly dim: number) {
    if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`dimension ${dim} must be a positive integer`);
    this.maxKeptRows = Math.floor(dim / 4);
  }

  /** Number of rows seen so far (through either entry point). */
  get rowCount(): number {
    return this.total;
  }

  addRows(rows: Float32Array | Float64Array): void {
    const d = this.dim;
    if (rows.length % d !== 0) throw new RangeError(`${rows.length} values are not whole rows of ${d}`);
    for (let i = 0; i < rows.length; i++) {
      if (!Number.isFinite(rows[i] as number)) throw new RangeError(`non-finite activation in row ${this.total + Math.floor(i / d)}`);
    }
    this.total += rows.length / d;
    const keeping = this.kept !== null && this.total <= this.maxKeptRows;
    if (this.sums !== undefined || !keeping) this.accumulate(this.blocks(), rows);
    if (keeping) this.kept?.push(Float64Array.from(rows));
    else this.kept = null;
  }

  /** Add a chunk's own HᵀH (d×d, symmetric, row-major) covering `rowCount` rows. */
  addGram(partial: Float32Array | Float64Array, rowCount: number): void {
    const d = this.dim;
    if (partial.length !== d * d) throw new RangeError(`partial Gram has ${partial.length} entries, expected ${d}×${d}`);
    const { upper } = this.blocks();
    for (let i = 0; i < d; i++) {
      for (let j = i; j < d; j++) upper[i * d + j] = (upper[i * d + j] as number) + (partial[i * d + j] as number);
    }
    this.total += rowCount;
    this.kept = null;
  }

  /** H (rowCount × d, row-major float64) while every row is known and rowCount ≤ d/4; else undefined. */
  keptRows(): Float64Array | undefined {
    if (this.kept === null) return undefined;
    const out = new Float64Array(this.total * this.dim);
    let at = 0;
    for (const chunk of this.kept) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }

  /** Fresh arrays (the caller may transfer them): the kept rows, or the flushed upper triangle. */
  snapshot(): GramSnapshot {
    const rows = this.keptRows();
    if (rows !== undefined) return { dim: this.dim, rowCount: this.total, rows };
    const { upper } = this.blocks();
    this.flush();
    return { dim: this.dim, rowCount: this.total, upper: Float64Array.from(upper) };
  }

  /** An accumulator in the snapshot's state: keptRows() and gram() return what the original's would. */
  static fromSnapshot(snapshot: GramSnapshot): GramAccumulator {
    const { dim, rowCount } = snapshot;
    const expected = 'rows' in snapshot ? rowCount * dim : dim * dim;
    const values = 'rows' in snapshot ? snapshot.rows : snapshot.upper;
    if (values.length !== expected) throw new RangeError(`a ${dim}-wide snapshot of ${rowCount} rows has ${values.length} values, expected ${expected}`);
    const gram = new GramAccumulator(dim);
    if ('rows' in snapshot && rowCount > gram.maxKeptRows) throw new RangeError(`a snapshot keeps at most ${gram.maxKeptRows} rows of ${dim}, not ${rowCount}`);
    gram.total = rowCount;
    if ('rows' in snapshot) gram.kept = [snapshot.rows];
    else {
      gram.kept = null;
      gram.sums = { upper: snapshot.upper };
    }
    return gram;
  }

  /** The full symmetric Gram matrix so far. */
  gram(): Float64Array {
    const { upper } = this.blocks();
    this.flush();
    const d = this.dim;
    const full = new Float64Array(d * d);
    for (let i = 0; i < d; i++) {
      for (let j = i; j < d; j++) {
        const v = upper[i * d + j] as number;
        full[i * d + j] = v;
        full[j * d + i] = v;
      }
    }
    return full;
  }

  /**
   * The Gram's arrays, allocated on first use with every row kept so far added through the
   * blocks, in order: the same block boundaries and sums as if they had been buffered on arrival.
   */
  private blocks(): GramBlocks {
    if (this.sums !== undefined) return this.sums;
    const sums: GramBlocks = { upper: new Float64Array(this.dim * this.dim) };
    this.sums = sums;
    for (const rows of this.kept ?? []) this.accumulate(sums, rows);
    return sums;
  }

  /** Buffers rows (already checked finite) in blocks of ROWS_PER_FLUSH, flushing each full block. */
  private accumulate(sums: GramBlocks, rows: Float32Array | Float64Array): void {
    const d = this.dim;
    const buffer = (sums.buffer ??= new Float64Array(d * ROWS_PER_FLUSH));
    for (let offset = 0; offset < rows.length; offset += d) {
      for (let c = 0; c < d; c++) buffer[c * ROWS_PER_FLUSH + this.buffered] = rows[offset + c] as number;
      this.buffered++;
      if (this.buffered === ROWS_PER_FLUSH) this.flush();
    }
  }

  /**
   * upper += Bᵀ·B for the buffered block, two rows of the Gram by two columns at a time: each
   * buffered value loaded serves two products (the one-pair loop loads two per product), and
   * every entry's sum still runs over the rows in order.
   */
  private flush(): void {
    const d = this.dim;
    const count = this.buffered;
    const { buffer: b, upper } = this.sums ?? {};
    if (count === 0 || b === undefined || upper === undefined) return;
    for (let i = 0; i < d; i += 2) {
      const i1 = Math.min(i + 1, d - 1);
      const colI0 = i * ROWS_PER_FLUSH;
      const colI1 = i1 * ROWS_PER_FLUSH;
      for (let j = i; j < d; j += 2) {
        const j1 = Math.min(j + 1, d - 1);
        const colJ0 = j * ROWS_PER_FLUSH;
        const colJ1 = j1 * ROWS_PER_FLUSH;
        let s00 = 0, s01 = 0, s10 = 0, s11 = 0;
        for (let r = 0; r < count; r++) {
          const a0 = b[colI0 + r] as number;
          const a1 = b[colI1 + r] as number;
          const c0 = b[colJ0 + r] as number;
          const c1 = b[colJ1 + r] as number;
          s00 += a0 * c0;
          s01 += a0 * c1;
          s10 += a1 * c0;
          s11 += a1 * c1;
        }
        // Entries past the edge (odd d) or below the diagonal were computed twice over; skip them.
        upper[i * d + j] = (upper[i * d + j] as number) + s00;
        if (j1 > j) upper[i * d + j1] = (upper[i * d + j1] as number) + s01;
        if (i1 > i && j >= i1) upper[i1 * d + j] = (upper[i1 * d + j] as number) + s10;
        if (i1 > i && j1 > j) upper[i1 * d + j1] = (upper[i1 * d + j1] as number) + s11;
      }
    }
    this.buffered = 0;
  }
}
