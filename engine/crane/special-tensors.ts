/**
 * CRANE's rules for the tensors that bypass the three stages (reference values in
 * protocol/settings-defaults.ts: thinkRows 0.8, lmHeadScale 0.03, routerAlphaFraction 1/3).
 *
 *   editEmbedding(thetaI, thetaT, shape, tokens, special)  θ_I; <think>/</think> rows thinkRows of the way to θ_T
 *   editLmHead(thetaI, thetaT, shape, tokens, special)     θ_I + lmHeadScale·δ; protected rows θ_I; think rows θ_I + thinkRows·δ
 *   editRouter(thetaI, thetaT, shape, alpha, special)      SLERP(θ_I, θ_T, α·routerAlphaFraction) over the flattened tensor
 *   routerEditWeights(products, shape, t)                  the (wa, wb) with editRouter = wa·θ_I + wb·θ_T (f32), from three products
 *   tokenRowEdit(rule, shape, tokens, special)(thetaI, thetaT, first, handedOver)   the embedding or lm_head rule over a range of the values
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
 * last), as in the reference, where the two lists are disjoint anyway. An id listed twice in one
 * list is one row, its rule applied once, on every path (whole tensor or a block, handed over or
 * not): the settings' id lists may repeat an id (a hand-written recipe), the tokenizer's never do.
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
  return rowEdit(shape, embeddingRows(shape, tokens, special), arith)(thetaI, thetaT, 0, handedOver);
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
  return rowEdit(shape, lmHeadRows(shape, tokens, special), arith)(thetaI, thetaT, 0, handedOver);
}

/** An edit of the values [first, first + thetaI.length) of one tensor from θ_I and θ_T over that range alone. */
export type TokenRowEdit = (thetaI: Float32Array, thetaT: Float32Array, first: number, handedOver: boolean) => EditedValues;

/** The rules whose every value depends on its row alone: the embedding's and lm_head's. */
export type TokenRowRule = 'embedding' | 'lm_head';
export const isTokenRowRule = (rule: string): rule is TokenRowRule => rule === 'embedding' || rule === 'lm_head';

/**
 * The embedding's or lm_head's rule over the values [first, first + thetaI.length) of a tensor of
 * `shape` (first = 0 and the whole tensor: editEmbedding, editLmHead): every value's rule depends
 * on its row alone, so an export edits these tensors a block at a time (export/elementwise-tensor.ts).
 * With `handedOver` the result is written into one of the input arrays (each value is written
 * once, after its own θ_I and θ_T are read): the embedding's into θ_I's, lm_head's into θ_T's.
 * The token ids are checked, and those past the tensor's rows gathered for the note, once per
 * tensor: when tokenRowEdit is called, not for each range.
 */
export function tokenRowEdit(
  rule: TokenRowRule,
  shape: readonly number[],
  tokens: TokenRows,
  special: Pick<SpecialTensorSettings, 'thinkRows' | 'lmHeadScale'>,
  arith: EditArithmetic = 'f32',
): TokenRowEdit {
  return rowEdit(shape, rule === 'embedding' ? embeddingRows(shape, tokens, special) : lmHeadRows(shape, tokens, special), arith);
}

/** The embedding keeps θ_I but for the think rows, blended by thinkRows. */
function embeddingRows(shape: readonly number[], tokens: Pick<TokenRows, 'think'>, special: Pick<SpecialTensorSettings, 'thinkRows'>): RowStrengths {
  return rowStrengths(shape, KEEP, [[tokens.think, special.thinkRows]]);
}

/** lm_head blends by lmHeadScale, keeps the protected rows' θ_I and blends the think rows (applied last) by thinkRows. */
function lmHeadRows(shape: readonly number[], tokens: TokenRows, special: Pick<SpecialTensorSettings, 'thinkRows' | 'lmHeadScale'>): RowStrengths {
  return rowStrengths(shape, special.lmHeadScale, [[tokens.special, KEEP], [tokens.think, special.thinkRows]]);
}

function rowEdit(shape: readonly number[], rules: RowStrengths, arith: EditArithmetic): TokenRowEdit {
  const rowCount = shape[0] ?? 0;
  const width = shape.slice(1).reduce((a, b) => a * b, 1);
  const note = rules.skipped.length === 0 ? undefined : `token ids ${formatIdRanges(rules.skipped)} are not rows of this [${shape.join(', ')}] tensor: skipped`;
  return (thetaI, thetaT, first, handedOver) => {
    const [a, b] = inputs(thetaI, thetaT, arith);
    // Handed over: into θ_I's array where rows keep θ_I unless listed (nothing to copy), else into θ_T's (a caller may still read θ_I: edit-directions.ts).
    const out = handedOver ? (rules.general === KEEP ? a : b) : new Float32Array(a.length);
    for (let at = 0; at < out.length;) {
      // A tensor without rows (a scalar) has no listed row: the general rule throughout.
      const row = rowCount === 0 ? -1 : Math.floor((first + at) / width);
      const end = rowCount === 0 ? out.length : Math.min(out.length, (row + 1) * width - first);
      const strength = rules.rows.get(row);
      blendRange(out, a, b, at, end, strength === undefined ? rules.general : strength, arith);
      at = end;
    }
    return note === undefined ? { values: out } : { values: out, note };
  };
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

/** θ_I + s·(θ_T − θ_I) of one element in float32 arithmetic (each op in float64, the result stored as float32). */
const f32Blend = (i: number, t: number, s: number): number => i + s * (t - i);
/** A row that keeps θ_I (a blend at strength 0 would turn −0 into +0). */
const KEEP = null;
type Strength = number | typeof KEEP;

/** The reference casts both sides to bf16 before any rule. */
function inputs(thetaI: Float32Array, thetaT: Float32Array, arith: EditArithmetic): [Float32Array, Float32Array] {
  return arith === 'reference' ? [toBf16(thetaI), toBf16(thetaT)] : [thetaI, thetaT];
}

function allZero(values: Float32Array): boolean {
  return values.every((v) => v === 0);
}

interface RowStrengths {
  /** The strength of every row not listed. */
  readonly general: Strength;
  readonly rows: ReadonlyMap<number, Strength>;
  /** Listed ids past the tensor's rows, list by list, in order. */
  readonly skipped: readonly number[];
}

/**
 * Each listed row's strength, a later list overriding an earlier one; an id that is no row index is
 * refused. A row is a key of `rows`, so an id listed twice gets its strength once.
 */
function rowStrengths(shape: readonly number[], general: Strength, lists: readonly (readonly [readonly number[], Strength])[]): RowStrengths {
  const rowCount = shape[0] ?? 0;
  const rows = new Map<number, Strength>();
  const skipped: number[] = [];
  for (const [ids, strength] of lists) {
    for (const row of ids) {
      if (!Number.isInteger(row) || row < 0) throw new RangeError(`token id ${row} is not a row index`);
      if (row >= rowCount) skipped.push(row);
      else rows.set(row, strength);
    }
  }
  return { general, rows, skipped };
}

/** out[i] = θ_I[i] + strength·(θ_T[i] − θ_I[i]) for i in [from, to), in the edit's arithmetic; θ_I[i] itself for KEEP. */
function blendRange(out: Float32Array, thetaI: Float32Array, thetaT: Float32Array, from: number, to: number, strength: Strength, arith: EditArithmetic): void {
  if (strength === KEEP) {
    if (out !== thetaI) out.set(thetaI.subarray(from, to), from);
  } else if (arith === 'reference') {
    for (let i = from; i < to; i++) out[i] = bf16Blend(thetaI[i] as number, thetaT[i] as number, strength);
  } else {
    for (let i = from; i < to; i++) out[i] = f32Blend(thetaI[i] as number, thetaT[i] as number, strength);
  }
}
