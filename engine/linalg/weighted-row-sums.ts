/**
 * weightedRowSums(weights, count, matrix, size, width) → [count, width]: out[r] = Σ_j
 * weights[r·size + j] · matrix[j], for a [count, size] weight matrix and a [size, width] row
 * matrix — the head's exps · W_chunk (head-loss.ts), as a WebAssembly SIMD kernel.
 *
 * Why not tf.matMul: tfjs-backend-wasm hands a product to XNNPACK with its right operand packed
 * per call (cached on that tensor until it is disposed), and here that operand is the freshly
 * uploaded vocab chunk: at Qwen3-0.6B shapes, 52,224 × 1,024 against 63 rows, the pack cost
 * ≈ 200 ms and the product, which re-streams the packed chunk for every few rows, ≈ 370 ms —
 * twice the logits product of the same FLOPs, where the chunk is the streamed left operand.
 * This kernel streams the chunk's rows as they are stored: blocks of BLOCK_ROWS rows are copied
 * into its memory (1 MiB at hidden 1,024, which stays in cache), each 4-row × 8-column tile of
 * the output is held in registers while the block's rows pass under it, one rank-1 update per
 * row. Measured in one process (load 14): 668–705 ms → 359–435 ms a chunk, copies included.
 *
 * Every output is a float32 sum over j in order, each product rounded then added (WebAssembly
 * never fuses a multiply into an add): the same additions as XNNPACK's own kernel makes, so
 * the results matched tf.matMul's on wasm bit for bit in the measurement above.
 */
import { WASM_PAGE_BYTES, lazyKernel, op, type Bytes } from './wasm-emitter.ts';

/** Matrix rows per block: 256 × 1,024 float32 is 1 MiB. */
const BLOCK_ROWS = 256;
const TILE_ROWS = 4;
const TILE_COLUMNS = 8;
const F32 = 4;

/** Params (byte addresses and counts): the block's weights [n, rows4] vocab-major, its rows [n, width8], out [rows4, width8]. */
const [WEIGHTS, ROWS, OUT, ROWS4, N, WIDTH8] = [0, 1, 2, 3, 4, 5];
/** i32 locals: the tile's column and row, j, and the pointers into rows, weights and out. */
const [COLUMN, ROW, J, ROW_AT, WEIGHT_AT, OUT_AT] = [6, 7, 8, 9, 10, 11];
/** v128 locals: a 4 × 8 tile of accumulators (two per row), the row's two vectors, a splat weight. */
const ACC = 12;
const [LEFT, RIGHT, SPLAT] = [ACC + 8, ACC + 9, ACC + 10];

/** out tile address: OUT + (ROW·WIDTH8 + COLUMN)·4, into OUT_AT. */
function tileAddress(): number[] {
  return [...op.localGet(OUT), ...op.localGet(ROW), ...op.localGet(WIDTH8), ...op.i32Mul, ...op.localGet(COLUMN), ...op.i32Add, ...op.i32Const(F32), ...op.i32Mul, ...op.i32Add, ...op.localSet(OUT_AT)];
}

/** OUT_AT moves on by one output row. */
function nextOutRow(): number[] {
  return [...op.localGet(OUT_AT), ...op.localGet(WIDTH8), ...op.i32Const(F32), ...op.i32Mul, ...op.i32Add, ...op.localSet(OUT_AT)];
}

/** Loads (load = true) or stores the accumulator tile at the tile's address. */
function moveTile(load: boolean): number[] {
  const out = tileAddress();
  for (let r = 0; r < TILE_ROWS; r++) {
    for (const [half, offset] of [[0, 0], [1, 16]] as const) {
      const acc = ACC + 2 * r + half;
      out.push(...(load ? [...op.localGet(OUT_AT), ...op.v128Load(offset), ...op.localSet(acc)] : [...op.localGet(OUT_AT), ...op.localGet(acc), ...op.v128Store(offset)]));
    }
    if (r < TILE_ROWS - 1) out.push(...nextOutRow());
  }
  return out;
}

function kernelBody(): Bytes {
  const update: number[] = [...op.localGet(ROW_AT), ...op.v128Load(0), ...op.localSet(LEFT), ...op.localGet(ROW_AT), ...op.v128Load(16), ...op.localSet(RIGHT)];
  for (let r = 0; r < TILE_ROWS; r++) {
    update.push(...op.localGet(WEIGHT_AT), ...op.v128Load32Splat(F32 * r), ...op.localSet(SPLAT));
    for (const [acc, x] of [[ACC + 2 * r, LEFT], [ACC + 2 * r + 1, RIGHT]] as const) {
      update.push(...op.localGet(acc), ...op.localGet(SPLAT), ...op.localGet(x), ...op.f32x4Mul, ...op.f32x4Add, ...op.localSet(acc));
    }
  }
  const advance = (pointer: number, stride: number): number[] => [...op.localGet(pointer), ...op.localGet(stride), ...op.i32Const(F32), ...op.i32Mul, ...op.i32Add, ...op.localSet(pointer)];
  const countUp = (local: number, step: number, end: number): number[] => [...op.localGet(local), ...op.i32Const(step), ...op.i32Add, ...op.localTee(local), ...op.localGet(end), ...op.i32LtU, ...op.brIf(0), ...op.end];
  return [
    ...op.i32Const(0), ...op.localSet(COLUMN), ...op.loop,
    ...op.i32Const(0), ...op.localSet(ROW), ...op.loop,
    ...moveTile(true),
    // ROW_AT = ROWS + COLUMN·4, WEIGHT_AT = WEIGHTS + ROW·4, j = 0
    ...op.localGet(ROWS), ...op.localGet(COLUMN), ...op.i32Const(F32), ...op.i32Mul, ...op.i32Add, ...op.localSet(ROW_AT),
    ...op.localGet(WEIGHTS), ...op.localGet(ROW), ...op.i32Const(F32), ...op.i32Mul, ...op.i32Add, ...op.localSet(WEIGHT_AT),
    ...op.i32Const(0), ...op.localSet(J), ...op.loop,
    ...update,
    ...advance(ROW_AT, WIDTH8), ...advance(WEIGHT_AT, ROWS4),
    ...countUp(J, 1, N),
    ...moveTile(false),
    ...countUp(ROW, TILE_ROWS, ROWS4),
    ...countUp(COLUMN, TILE_COLUMNS, WIDTH8),
  ];
}

const instance = lazyKernel<(weights: number, rows: number, out: number, rows4: number, n: number, width8: number) => void>(
  () => ({ name: 'weightedRowSums', params: 6, locals: { i32: 6, v128: 11 }, body: kernelBody() }),
);

export function weightedRowSums(weights: Float32Array, count: number, matrix: Float32Array, size: number, width: number): Float32Array {
  const sums = new WeightedRowSums(weights, count, size, width);
  if (matrix.length !== size * width) throw new RangeError(`a matrix of ${matrix.length} values is not ${size} × ${width}`);
  sums.add(0, matrix);
  return sums.result();
}

/**
 * weightedRowSums with the matrix given a block of rows at a time, in order (add(first, rows)):
 * for a matrix formed as it is used (an on-demand head direction, model/head-directions.ts).
 * Between blocks the output tile sums wait in a JS array, restored exactly before the next, so
 * each output is the same float32 sum over j in order as one call over the whole matrix makes,
 * wherever the blocks split it. Another kernel call may run between two adds (the kernel's
 * memory is this thread's one instance): nothing but `out` is kept across them.
 */
export class WeightedRowSums {
  private readonly rows4: number;
  private readonly width8: number;
  private readonly block: number;
  /** The output tiles so far, [rows4, width8]. */
  private readonly out: Float32Array;
  private next = 0;

  constructor(private readonly weights: Float32Array, private readonly count: number, private readonly size: number, private readonly width: number) {
    if (!(Number.isInteger(count) && count > 0 && Number.isInteger(size) && size > 0 && Number.isInteger(width) && width > 0)) throw new RangeError(`weightedRowSums of ${count} × ${size} weights over ${size} × ${width} rows: sizes must be positive integers`);
    if (weights.length !== count * size) throw new RangeError(`${weights.length} weights are not ${count} × ${size}`);
    this.rows4 = Math.ceil(count / TILE_ROWS) * TILE_ROWS;
    this.width8 = Math.ceil(width / TILE_COLUMNS) * TILE_COLUMNS;
    this.block = Math.min(BLOCK_ROWS, size);
    this.out = new Float32Array(this.rows4 * this.width8);
  }

  /** Adds matrix rows first… (`rows`: [n · width], n ≥ 1), which must follow the rows added so far. */
  add(first: number, rows: Float32Array): void {
    const { weights, count, size, width, rows4, width8, block } = this;
    const n = rows.length / width;
    if (first !== this.next || !Number.isInteger(n) || n < 1 || first + n > size) throw new RangeError(`matrix rows ${first}… (${rows.length} values of rows of ${width}) do not follow row ${this.next} of ${size}`);
    this.next = first + n;
    // Layout in floats: the block's rows [block, width8], its weights [block, rows4], out [rows4, width8].
    const [rowsAt, weightsAt, outAt] = [0, block * width8, block * width8 + block * rows4];
    const end = outAt + rows4 * width8;
    const kernel = instance();
    const missing = end * F32 - kernel.memory.buffer.byteLength;
    if (missing > 0) kernel.memory.grow(Math.ceil(missing / WASM_PAGE_BYTES));
    const memory = new Float32Array(kernel.memory.buffer, 0, end);
    // Padding lanes only ever meet padding columns or rows of out, which are dropped; zeroed anyway so nothing depends on old memory.
    memory.fill(0, 0, outAt);
    memory.set(this.out, outAt);
    for (let at = 0; at < n; at += block) {
      const m = Math.min(block, n - at);
      if (width8 === width) memory.set(rows.subarray(at * width, (at + m) * width), rowsAt);
      else for (let j = 0; j < m; j++) memory.set(rows.subarray((at + j) * width, (at + j + 1) * width), rowsAt + j * width8);
      for (let r = 0; r < count; r++) {
        const from = r * size + first + at;
        for (let j = 0; j < m; j++) memory[weightsAt + j * rows4 + r] = weights[from + j] as number;
      }
      kernel.run(weightsAt * F32, rowsAt * F32, outAt * F32, rows4, m, width8);
    }
    this.out.set(memory.subarray(outAt, end));
  }

  /** [count · width]: the sums over every row, once all are added. */
  result(): Float32Array {
    if (this.next !== this.size) throw new RangeError(`weightedRowSums over ${this.next} of ${this.size} matrix rows`);
    const out = new Float32Array(this.count * this.width);
    for (let r = 0; r < this.count; r++) out.set(this.out.subarray(r * this.width8, r * this.width8 + this.width), r * this.width);
    return out;
  }
}
