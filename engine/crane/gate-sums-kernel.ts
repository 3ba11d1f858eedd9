/**
 * The Conservative Taylor Gate's per-coordinate sums (gate-accumulator.ts) as a WebAssembly SIMD kernel.
 *
 *   taylorSums(thetaI, delta, gradR, gradA) → { positive: Σp, reasoning: Σs_R, agent: Σs_A, thetaSquared,
 *                                              deltaSquared, conflictMass, totalMass }   (GateSums less count)
 *
 * Why: as scalar JS the loop is branch-bound, not arithmetic-bound — max(0, min(s_R, s_A)) and
 * the conflict test s_R·s_A < 0 are three data-dependent branches per coordinate whose outcome
 * is a coin flip on real gradients (about 50 ns a coordinate under the issue-14 profile, the
 * largest share of the gates stage after the preview moments). f64x2.min/max/lt are branch-free.
 *
 * Bit-identical to the scalar loop: each coordinate's terms are the same float64 operations on
 * the same widened float32 inputs ((−g)·δ, |s_R| + |s_A|, …; f64x2.min/max order NaN and ±0 as
 * Math.min/max do), and the lanes are added into seven scalar sums in coordinate order. The
 * conflict mass adds +0 where the scalar loop added nothing; a sum that starts at +0 never
 * becomes −0, so adding +0 leaves it unchanged. An odd tail is padded with a zero coordinate,
 * whose terms are all ±0 for the same reason.
 */
import { WASM_PAGE_BYTES, lazyKernel, op, type Bytes } from '../linalg/wasm-emitter.ts';
import type { GateSums } from './gate-accumulator.ts';

const TAYLOR_SUMS = 7;

/** The gate's sums of one tensor, before the accumulator adds its coordinate count. */
export type TaylorSums = Omit<GateSums, 'count'>;
/** Coordinates copied into the kernel's memory per call (4 arrays × 256 KiB). */
const CHUNK = 1 << 16;
/** Bytes of one input array's slots: CHUNK values and room for the zero that pads an odd tail. */
const SLOTS = (CHUNK + 2) * 4;
const OUT_AT = 4 * SLOTS;

/** Params: the four float32 arrays, their byte length, the seven float64 sums (read and written back). */
const [THETA, DELTA, GRAD_R, GRAD_A, BYTES, OUT] = [0, 1, 2, 3, 4, 5];
const K = 6; // i32 local: byte offset of the current pair of coordinates
const SUM = 7; // f64 locals SUM … SUM+6, in TaylorSums order
/** v128 locals. */
const [V_THETA, V_DELTA, S_R, S_A, V_P, MASS, CONFLICT, ZERO] = [14, 15, 16, 17, 18, 19, 20, 21];

function kernelBody(): Bytes {
  const load = (array: number) => [...op.localGet(array), ...op.localGet(K), ...op.i32Add, ...op.v128Load64Zero(0), ...op.f64x2PromoteLowF32x4];
  const set = (local: number, expression: Bytes) => [...expression, ...op.localSet(local)];
  const get = op.localGet;
  // Per coordinate, in the scalar loop's terms; lanes are coordinates k and k+1.
  const terms = [
    ...set(V_THETA, load(THETA)),
    ...set(V_DELTA, load(DELTA)),
    ...set(S_R, [...load(GRAD_R), ...op.f64x2Neg, ...get(V_DELTA), ...op.f64x2Mul]),
    ...set(S_A, [...load(GRAD_A), ...op.f64x2Neg, ...get(V_DELTA), ...op.f64x2Mul]),
    ...set(V_P, [...get(ZERO), ...get(S_R), ...get(S_A), ...op.f64x2Min, ...op.f64x2Max]),
    ...set(MASS, [...get(S_R), ...op.f64x2Abs, ...get(S_A), ...op.f64x2Abs, ...op.f64x2Add]),
    ...set(CONFLICT, [...get(MASS), ...get(S_R), ...get(S_A), ...op.f64x2Mul, ...get(ZERO), ...op.f64x2Lt, ...op.v128And]),
    ...set(V_THETA, [...get(V_THETA), ...get(V_THETA), ...op.f64x2Mul]),
    ...set(V_DELTA, [...get(V_DELTA), ...get(V_DELTA), ...op.f64x2Mul]),
  ];
  const perSum = [V_P, S_R, S_A, V_THETA, V_DELTA, CONFLICT, MASS];
  const accumulate = ([0, 1] as const).flatMap((lane) =>
    perSum.flatMap((vector, s) => [...get(SUM + s), ...get(vector), ...op.f64x2ExtractLane(lane), ...op.f64Add, ...op.localSet(SUM + s)]));
  const sums = perSum.map((_, s) => s);
  return [
    ...sums.flatMap((s) => [...get(OUT), ...op.f64Load(8 * s), ...op.localSet(SUM + s)]),
    ...set(ZERO, op.v128Zero),
    ...op.i32Const(0), ...op.localSet(K),
    ...op.loop,
    ...terms,
    ...accumulate,
    ...get(K), ...op.i32Const(8), ...op.i32Add, ...op.localTee(K),
    ...get(BYTES), ...op.i32LtU, ...op.brIf(0),
    ...op.end,
    ...sums.flatMap((s) => [...get(OUT), ...get(SUM + s), ...op.f64Store(8 * s)]),
  ];
}

const instance = lazyKernel<(thetaI: number, delta: number, gradR: number, gradA: number, bytes: number, out: number) => void>(
  () => ({ name: 'taylorSums', params: 6, locals: { i32: 1, f64: TAYLOR_SUMS, v128: 8 }, body: kernelBody() }),
  Math.ceil((OUT_AT + 8 * TAYLOR_SUMS) / WASM_PAGE_BYTES),
);

/** The seven sums over every coordinate (the four arrays have one length). */
export function taylorSums(thetaI: Float32Array, delta: Float32Array, gradR: Float32Array, gradA: Float32Array): TaylorSums {
  const { memory, run } = instance();
  const inputs = [thetaI, delta, gradR, gradA];
  const at = inputs.map((_, k) => k * SLOTS);
  const heap = new Float32Array(memory.buffer);
  const out = new Float64Array(memory.buffer, OUT_AT, TAYLOR_SUMS).fill(0);
  const n = delta.length;
  for (let start = 0; start < n; start += CHUNK) {
    const length = Math.min(CHUNK, n - start);
    inputs.forEach((values, k) => {
      heap.set(values.subarray(start, start + length), (at[k] as number) / 4);
      heap[(at[k] as number) / 4 + length] = 0;
    });
    run(at[0] as number, at[1] as number, at[2] as number, at[3] as number, 8 * Math.ceil(length / 2), OUT_AT);
  }
  const sum = (k: number) => out[k] as number;
  return { positive: sum(0), reasoning: sum(1), agent: sum(2), thetaSquared: sum(3), deltaSquared: sum(4), conflictMass: sum(5), totalMass: sum(6) };
}
