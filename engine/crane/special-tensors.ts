/**
 * CRANE's rules for the tensors that bypass the three stages (reference values in
 * protocol/settings-defaults.ts: thinkRows 0.8, lmHeadScale 0.03, routerAlphaFraction 1/3).
 *
 *   editEmbedding(thetaI, thetaT, shape, tokens, special)  θ_I; <think>/</think> rows thinkRows of the way to θ_T
 *   editLmHead(thetaI, thetaT, shape, tokens, special)     θ_I + lmHeadScale·δ; protected rows θ_I; think rows θ_I + thinkRows·δ
 *   editRouter(thetaI, thetaT, shape, alpha, special)      SLERP(θ_I, θ_T, α·routerAlphaFraction) over the flattened tensor
 *   routerEditWeights(products, shape, t)                  the (wa, wb) with editRouter = wa·θ_I + wb·θ_T (f32), from three products
 *
 * Each takes the edit's arithmetic last (settings `arith`, f32 when absent). With `reference`
 * the inputs are cast to bf16 and every blend θ_I + s·(θ_T − θ_I) rounds each op to bf16 as
 * crane_merge.py does; the router is interpolated in float32 and cast to bf16 at the end, as
 * the reference does (its float32 sin/acos are not reproduced to the last bit).
 *
 * Router edge rules are the reference's slerp_tensor: a 1-D router is interpolated linearly,
 * θ_I + t·(θ_T − θ_I); when one side is all zeros the result is the other side (θ_T when both
 * are); otherwise SLERP, linear where the angle is tiny (slerp.ts).
 *
 * Token ids always come from the caller (tokens.special: the tokenizer's added tokens but the
 * think pair, with the user's edits; protocol/protected-tokens.ts); nothing here knows a
 * vocabulary. An id past the tensor's rows (only a user-added one can be: the tokenizer's are
 * checked against the embedding at load) is skipped, as the reference does, and named in the
 * edit's note. A token listed both as protected and as think gets the think rule (it is applied
 * last), as in the reference, where the two lists are disjoint anyway.
 */
import { formatIdRanges } from '../protocol/protected-tokens.ts';
import type { EditArithmetic, SpecialTensorSettings, TokenRows } from '../protocol/settings-schemas.ts';
import { bf16Blend, toBf16 } from './reference-arithmetic.ts';
import { routerSlerpInto, routerSlerpWeights } from './slerp.ts';
import type { EditedValues } from './tensor-pair.ts';

export function editEmbedding(
  thetaI: Float32Array,
  thetaT: Float32Array,
  shape: readonly number[],
  tokens: Pick<TokenRows, 'think'>,
  special: Pick<SpecialTensorSettings, 'thinkRows'>,
  arith: EditArithmetic = 'f32',
  handedOver = false,
): EditedValues {
  const [a, b] = inputs(thetaI, thetaT, arith);
  // θ_I's own array when the caller handed it over (each blended value reads only its own element).
  const out = handedOver ? a : Float32Array.from(a);
  return withSkipped(out, shape, blendRows(out, a, b, shape, tokens.think, special.thinkRows, blendOf(arith)));
}

export function editLmHead(
  thetaI: Float32Array,
  thetaT: Float32Array,
  shape: readonly number[],
  tokens: TokenRows,
  special: Pick<SpecialTensorSettings, 'thinkRows' | 'lmHeadScale'>,
  arith: EditArithmetic = 'f32',
  handedOver = false,
): EditedValues {
  const [a, b] = inputs(thetaI, thetaT, arith);
  const blend = blendOf(arith);
  const scale = special.lmHeadScale;
  // Into θ_T's own array when the caller handed it over; the think rows blend from θ_T's values,
  // so those few rows are saved first and put back before their blend.
  const out = handedOver ? b : new Float32Array(a.length);
  const thinkT = handedOver ? savedRows(b, shape, tokens.think) : undefined;
  for (let i = 0; i < out.length; i++) out[i] = blend(a[i] as number, b[i] as number, scale);
  const protectedSkipped = blendRows(out, a, b, shape, tokens.special, 0, keep);
  thinkT?.restore();
  return withSkipped(out, shape, [...protectedSkipped, ...blendRows(out, a, b, shape, tokens.think, special.thinkRows, blend)]);
}

/** Copies of the listed rows that exist, and a way to write them back into `values`. */
function savedRows(values: Float32Array, shape: readonly number[], rows: readonly number[]): { restore: () => void } {
  const rowCount = shape[0] ?? 0;
  const width = rowCount === 0 ? 0 : values.length / rowCount;
  const copies = rows.filter((row) => Number.isInteger(row) && row >= 0 && row < rowCount).map((row) => [row, values.slice(row * width, (row + 1) * width)] as const);
  return { restore: () => copies.forEach(([row, copy]) => values.set(copy, row * width)) };
}

export function editRouter(
  thetaI: Float32Array,
  thetaT: Float32Array,
  shape: readonly number[],
  alpha: number,
  special: Pick<SpecialTensorSettings, 'routerAlphaFraction'>,
  arith: EditArithmetic = 'f32',
): Float32Array {
  const [a, b] = inputs(thetaI, thetaT, arith);
  const t = alpha * special.routerAlphaFraction;
  const out = new Float32Array(a.length);
  if (allZero(a)) out.set(b);
  else if (allZero(b)) out.set(a);
  else if (shape.length === 1) for (let i = 0; i < out.length; i++) out[i] = f32Blend(a[i] as number, b[i] as number, t);
  else routerSlerpInto(a, b, t, out);
  return arith === 'reference' ? toBf16(out) : out;
}

/** θ_I·θ_T, ‖θ_I‖², ‖θ_T‖² of a router: all its edit depends on besides t and its rank. */
export interface RouterProducts {
  readonly dot: number;
  readonly normI: number;
  readonly normT: number;
}

/**
 * editRouter's result as wa·θ_I + wb·θ_T (f32 arithmetic, up to float rounding), by the same edge
 * rules: a zero side gives the other, a 1-D router is linear, otherwise the SLERP weights. The
 * preview needs only the products, never the tensors.
 */
export function routerEditWeights(products: RouterProducts, shape: readonly number[], t: number): [number, number] {
  if (products.normI === 0) return [0, 1];
  if (products.normT === 0) return [1, 0];
  if (shape.length === 1) return [1 - t, t];
  return routerSlerpWeights(products.dot, products.normI, products.normT, t);
}

/** θ_I + s·(θ_T − θ_I) of one element, in the edit's arithmetic. */
type Blend = (thetaI: number, thetaT: number, strength: number) => number;
const f32Blend: Blend = (i, t, s) => i + s * (t - i);
const blendOf = (arith: EditArithmetic): Blend => (arith === 'reference' ? bf16Blend : f32Blend);
/** Protected rows are θ_I itself (a blend at strength 0 would turn −0 into +0). */
const keep: Blend = (i) => i;

/** The reference casts both sides to bf16 before any rule. */
function inputs(thetaI: Float32Array, thetaT: Float32Array, arith: EditArithmetic): [Float32Array, Float32Array] {
  return arith === 'reference' ? [toBf16(thetaI), toBf16(thetaT)] : [thetaI, thetaT];
}

function allZero(values: Float32Array): boolean {
  return values.every((v) => v === 0);
}

function withSkipped(values: Float32Array, shape: readonly number[], skipped: readonly number[]): EditedValues {
  if (skipped.length === 0) return { values };
  return { values, note: `token ids ${formatIdRanges(skipped)} are not rows of this [${shape.join(', ')}] tensor: skipped` };
}

/** out[row] = θ_I[row] + strength·(θ_T[row] − θ_I[row]) for each listed row; returns the ids past the rows. */
function blendRows(
  out: Float32Array,
  thetaI: Float32Array,
  thetaT: Float32Array,
  shape: readonly number[],
  rows: readonly number[],
  strength: number,
  blend: Blend,
): number[] {
  const rowCount = shape[0] ?? 0;
  const width = rowCount === 0 ? 0 : thetaI.length / rowCount;
  const skipped: number[] = [];
  for (const row of rows) {
    if (!Number.isInteger(row) || row < 0) throw new RangeError(`token id ${row} is not a row index`);
    if (row >= rowCount) {
      skipped.push(row);
      continue;
    }
    for (let i = row * width; i < (row + 1) * width; i++) {
      out[i] = blend(thetaI[i] as number, thetaT[i] as number, strength);
    }
  }
  return skipped;
}
