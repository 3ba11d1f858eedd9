/**
 * A Δ that is zero on most rows kept as its nonzero rows only (the think rows of a 151,936-row
 * embedding or lm_head): fewer than half of a matrix's rows nonzero → { values of those rows,
 * rows, width }; otherwise (or a tensor of under 2 rows) the whole Δ.
 *
 *   sparseRows(direction, delta, shape) → TensorDelta            a whole Δ
 *   const rows = new SparseRowCollector(direction, rowCount, width)
 *   rows.add(rowSet, values); …; rows.result() → TensorDelta     a Δ arriving a block of rows at a time
 *
 * Both give the same TensorDelta for the same values, rows ascending (a row-sparse Δ's dot sums
 * its rows in that order, directional-gradients.ts). The collector writes each nonzero row into
 * a zero-filled tensor-sized array (pages the rows never touch cost no memory) and gathers them
 * at the end when they are few. It skips all-zero rows, which is exact for Δ = edited − θ_I:
 * a difference x − y is −0 only for x = −0, y = +0, and no edit rule turns a +0 weight into −0.
 */
import type { RowSet } from '../crane/edit-directions.ts';
import type { TensorDelta } from './delta-store.ts';

export function sparseRows(direction: number, delta: Float32Array, shape: readonly number[]): TensorDelta {
  const rowCount = shape.length === 2 ? (shape[0] as number) : 0;
  if (rowCount < 2) return { direction, values: delta };
  const width = delta.length / rowCount;
  const rows: number[] = [];
  for (let r = 0; r < rowCount && rows.length * 2 < rowCount; r++) if (nonzero(delta, r * width, width)) rows.push(r);
  return rows.length * 2 >= rowCount ? { direction, values: delta } : gathered(direction, delta, rows, width);
}

export class SparseRowCollector {
  private readonly rows: number[] = [];
  private readonly values: Float32Array;
  /** Every row is written from here on: more than half of them are nonzero, so the Δ is kept whole. */
  private whole: boolean;

  constructor(private readonly direction: number, private readonly rowCount: number, private readonly width: number) {
    this.values = new Float32Array(rowCount * width);
    this.whole = rowCount < 2;
  }

  /** `values`: the Δ of `rows` (rows.length × width), rows ascending and after every row added before. */
  add(rows: RowSet, values: Float32Array): void {
    const { width } = this;
    const count = 'count' in rows ? rows.count : rows.length;
    if (values.length !== count * width) throw new RangeError(`${values.length} values are not ${count} rows of ${width}`);
    for (let k = 0; k < count; k++) {
      const row = 'count' in rows ? rows.first + k : (rows[k] as number);
      if (this.whole && 'count' in rows) {
        this.values.set(values.subarray(k * width), row * width); // the rest of a block of consecutive rows in one copy
        return;
      }
      if (!this.whole && !nonzero(values, k * width, width)) continue;
      this.values.set(values.subarray(k * width, (k + 1) * width), row * width);
      if (this.whole) continue;
      this.rows.push(row);
      this.whole = this.rows.length * 2 >= this.rowCount;
    }
  }

  result(): TensorDelta {
    return this.whole ? { direction: this.direction, values: this.values } : gathered(this.direction, this.values, this.rows, this.width);
  }
}

function nonzero(values: Float32Array, start: number, width: number): boolean {
  for (let i = start; i < start + width; i++) if (values[i] !== 0) return true;
  return false;
}

function gathered(direction: number, delta: Float32Array, rows: readonly number[], width: number): TensorDelta {
  const values = new Float32Array(rows.length * width);
  rows.forEach((r, i) => values.set(delta.subarray(r * width, (r + 1) * width), i * width));
  return { direction, values, rows: Int32Array.from(rows), width };
}
