/**
 * row-projection.ts's projectFourRows as a WebAssembly SIMD kernel, for one basis used many times:
 *
 *   const basis = new ProjectionBasis(directions, count)   directions: count × length, float64, direction-major
 *   basis.projectFourRows(rows, out)                       out[k·count + i] = rows[k] · direction_i, k = 0..3
 *
 * Why: GSP's projection (gsp-projector.ts) is four rows against up to 256 directions, twice per
 * block of rows, over every edited tensor — the largest share of the curvature stage's CPU
 * after the matmuls as scalar JS (ARCHITECTURE.md, compute profile). The basis is laid out in
 * the kernel's own memory once, in the constructor; each call copies only its four rows.
 *
 * Bit-identical to the scalar loop: each f64x2 lane is one direction's sum for one row, started
 * at +0 and added in the order of j as `sum + row_j · v_j` with a separate f64x2.mul and
 * f64x2.add (WebAssembly never fuses them); float32 rows are widened to float64 exactly, as the
 * JS `as number` does. A count that is not a multiple of four is padded with zero directions
 * whose lanes are dropped: lanes never mix, so the kept ones are unchanged.
 *
 * Memory layout (float64): the basis in blocks of four directions, coordinate j as
 * [v_4b, v_4b+1, v_4b+2, v_4b+3] (one v128 load gives a pair, a second the other pair); the four
 * rows interleaved, coordinate j as [a_j, b_j, c_j, d_j] (each value splat with one load); out
 * per block as [row][four directions].
 */
import type { RowView } from './row-projection.ts';
import { WASM_PAGE_BYTES, instances, op, wasmModule, type Bytes, type WasmMemory } from './wasm-emitter.ts';

const ROWS = 4;
const BLOCK = 4;
/** Bytes of one coordinate of a basis block, and of the interleaved rows. */
const STRIDE = 32;
/** Bytes one block of directions writes: four rows × four directions. */
const OUT_BLOCK = ROWS * BLOCK * 8;

/** Params (byte addresses): basis, basisEnd, rows, rowsEnd, out. */
const [BASIS, BASIS_END, ROW_VALUES, ROWS_END, OUT] = [0, 1, 2, 3, 4];
/** i32 locals: the current basis block, the pointers into the rows and the block, the out block. */
const [B, P, Q, O] = [5, 6, 7, 8];
/** v128 locals: 8 accumulators (row k: 2k = directions 0–1 of the block, 2k+1 = directions 2–3), the two pairs, a splat row value. */
const ACC = 9;
const [PAIR0, PAIR1, SPLAT] = [ACC + 8, ACC + 9, ACC + 10];

function kernelBody(): Bytes {
  const accumulate: number[] = [...op.localGet(Q), ...op.v128Load(0), ...op.localSet(PAIR0), ...op.localGet(Q), ...op.v128Load(16), ...op.localSet(PAIR1)];
  for (let k = 0; k < ROWS; k++) {
    accumulate.push(...op.localGet(P), ...op.v128Load64Splat(8 * k), ...op.localSet(SPLAT));
    for (const [acc, pair] of [[ACC + 2 * k, PAIR0], [ACC + 2 * k + 1, PAIR1]] as const) {
      accumulate.push(...op.localGet(acc), ...op.localGet(SPLAT), ...op.localGet(pair), ...op.f64x2Mul, ...op.f64x2Add, ...op.localSet(acc));
    }
  }
  const zeroAccumulators = Array.from({ length: 2 * ROWS }, (_, k) => [...op.v128Zero, ...op.localSet(ACC + k)]).flat();
  const store = Array.from({ length: 2 * ROWS }, (_, k) => [...op.localGet(O), ...op.localGet(ACC + k), ...op.v128Store(16 * k)]).flat();
  const advance = (local: number, bytes: number) => [...op.localGet(local), ...op.i32Const(bytes), ...op.i32Add, ...op.localSet(local)];
  return [
    ...op.localGet(BASIS), ...op.localSet(B),
    ...op.localGet(OUT), ...op.localSet(O),
    ...op.loop, // blocks of four directions
    ...zeroAccumulators,
    ...op.localGet(ROW_VALUES), ...op.localSet(P),
    ...op.localGet(B), ...op.localSet(Q),
    ...op.loop, // coordinates j
    ...accumulate,
    ...advance(Q, STRIDE),
    ...advance(P, STRIDE),
    ...op.localGet(P), ...op.localGet(ROWS_END), ...op.i32LtU, ...op.brIf(0),
    ...op.end,
    ...store,
    ...advance(O, OUT_BLOCK),
    // Q has walked the whole block: it is where the next one starts.
    ...op.localGet(Q), ...op.localTee(B), ...op.localGet(BASIS_END), ...op.i32LtU, ...op.brIf(0),
    ...op.end,
  ];
}

type Run = (basis: number, basisEnd: number, rows: number, rowsEnd: number, out: number) => void;

const NAME = 'projectFourRows';
let newInstance: (() => Record<string, unknown>) | undefined;
/**
 * An instance of the one compiled module, built on first use (its memory is grown per instance,
 * not sized in the bytes): each basis gets its own instance and memory, so two bases can
 * alternate call by call, as GSP's c = Δ_o·V and V·c do, without re-copying either.
 */
function kernelInstance(): Record<string, unknown> {
  newInstance ??= instances(wasmModule([{ name: NAME, params: 5, locals: { i32: 4, v128: 11 }, body: kernelBody() }]));
  return newInstance();
}

export class ProjectionBasis {
  readonly count: number;
  readonly length: number;
  private readonly run: Run;
  private readonly heap: Float64Array;
  private readonly basisEnd: number;
  /** Float64 indices of the interleaved rows and of out. */
  private readonly rowsAt: number;
  private readonly outAt: number;
  /** The four rows' slots in the kernel's memory, interleaved: value j of row k at 4j + k. */
  readonly rowSlots: Float64Array;

  /** `directions`: count × length float64, direction i at [i·length, (i+1)·length), as transposedBasis gives. */
  constructor(directions: Float64Array, count: number) {
    if (!(Number.isInteger(count) && count > 0) || directions.length === 0 || directions.length % count !== 0) {
      throw new RangeError(`a basis of ${directions.length} values is not ${count} non-empty directions`);
    }
    const length = directions.length / count;
    const blocks = Math.ceil(count / BLOCK);
    this.count = count;
    this.length = length;
    this.rowsAt = blocks * length * BLOCK;
    this.outAt = this.rowsAt + length * ROWS;
    const bytes = (this.outAt + blocks * ROWS * BLOCK) * 8;
    const exports = kernelInstance();
    const memory = exports['memory'] as WasmMemory;
    memory.grow(Math.max(0, Math.ceil((bytes - memory.buffer.byteLength) / WASM_PAGE_BYTES)));
    this.run = exports[NAME] as Run;
    this.heap = new Float64Array(memory.buffer, 0, bytes / 8);
    this.basisEnd = this.rowsAt * 8;
    this.rowSlots = this.heap.subarray(this.rowsAt, this.outAt);
    for (let i = 0; i < count; i++) {
      const block = Math.floor(i / BLOCK) * length * BLOCK + (i % BLOCK);
      for (let j = 0; j < length; j++) this.heap[block + j * BLOCK] = directions[i * length + j] as number;
    }
  }

  /** out[k·count + i] = rows[k] · direction_i, each row `length` values from its offset. */
  projectFourRows(rows: readonly [RowView, RowView, RowView, RowView], out: Float64Array): void {
    const { rowSlots, length } = this;
    for (let k = 0; k < ROWS; k++) {
      const { values, offset } = rows[k] as RowView;
      if (offset < 0 || offset + length > values.length) throw new RangeError(`row ${k} (${length} values from ${offset}) overruns its ${values.length}-value array`);
      for (let j = 0, at = k; j < length; j++, at += ROWS) rowSlots[at] = values[offset + j] as number;
    }
    this.projectSlots(out);
  }

  /**
   * projectFourRows of the rows already written into rowSlots: for a caller that forms its rows
   * value by value (direction-moments.ts: T(δ) computed as it is laid out) and so copies nothing twice.
   */
  projectSlots(out: Float64Array): void {
    const { heap, rowsAt, outAt, length, count } = this;
    this.run(0, this.basisEnd, rowsAt * 8, (rowsAt + length * ROWS) * 8, outAt * 8);
    for (let k = 0; k < ROWS; k++) {
      // Direction i of row k is at outAt + (i − i mod 4)·4 + 4k + i mod 4.
      for (let i = 0, from = outAt + k * BLOCK; i < count; i += BLOCK, from += ROWS * BLOCK) {
        const lanes = Math.min(BLOCK, count - i);
        for (let lane = 0; lane < lanes; lane++) out[k * count + i + lane] = heap[from + lane] as number;
      }
    }
  }
}
