/**
 * CRANE's rules for the tensors that bypass the three stages (reference defaults).
 *
 *   editEmbedding(thetaI, thetaT, shape, tokens, options?)  θ_I; <think>/</think> rows 0.8 of the way to θ_T
 *   editLmHead(thetaI, thetaT, shape, tokens, options?)     θ_I + 0.03·δ; special rows θ_I; think rows θ_I + 0.8·δ
 *   editRouter(thetaI, thetaT, alpha)                       SLERP(θ_I, θ_T, α/3) over the flattened tensor
 *
 * Token ids always come from the caller (the tokenizer); nothing here knows a vocabulary.
 * An id outside the tensor's rows is a caller error and throws. A token listed both as
 * special and as think gets the think rule (it is applied last), as in the reference, where
 * the two lists are disjoint anyway.
 */
import { slerpInto } from './slerp.ts';

export const THINK_ROW_STRENGTH = 0.8;
export const LM_HEAD_SCALE = 0.03;
/** The router moves by SLERP with t = α / ROUTER_ALPHA_DIVISOR. */
export const ROUTER_ALPHA_DIVISOR = 3;

export interface TokenRows {
  /** Ids of `<think>` and `</think>`. */
  readonly think: readonly number[];
  /** Ids of the special/control tokens whose lm_head rows stay at θ_I. */
  readonly special: readonly number[];
}

export interface RowRuleOptions {
  readonly thinkStrength?: number;
  readonly lmHeadScale?: number;
}

export function editEmbedding(
  thetaI: Float32Array,
  thetaT: Float32Array,
  shape: readonly number[],
  tokens: Pick<TokenRows, 'think'>,
  options: RowRuleOptions = {},
): Float32Array {
  const out = Float32Array.from(thetaI);
  blendRows(out, thetaI, thetaT, shape, tokens.think, options.thinkStrength ?? THINK_ROW_STRENGTH);
  return out;
}

export function editLmHead(
  thetaI: Float32Array,
  thetaT: Float32Array,
  shape: readonly number[],
  tokens: TokenRows,
  options: RowRuleOptions = {},
): Float32Array {
  const scale = options.lmHeadScale ?? LM_HEAD_SCALE;
  const out = new Float32Array(thetaI.length);
  for (let i = 0; i < out.length; i++) out[i] = (thetaI[i] as number) + scale * ((thetaT[i] as number) - (thetaI[i] as number));
  blendRows(out, thetaI, thetaT, shape, tokens.special, 0);
  blendRows(out, thetaI, thetaT, shape, tokens.think, options.thinkStrength ?? THINK_ROW_STRENGTH);
  return out;
}

export function editRouter(thetaI: Float32Array, thetaT: Float32Array, alpha: number): Float32Array {
  const out = new Float32Array(thetaI.length);
  slerpInto(thetaI, thetaT, alpha / ROUTER_ALPHA_DIVISOR, out);
  return out;
}

/** out[row] = θ_I[row] + strength·(θ_T[row] − θ_I[row]) for each listed row. */
function blendRows(
  out: Float32Array,
  thetaI: Float32Array,
  thetaT: Float32Array,
  shape: readonly number[],
  rows: readonly number[],
  strength: number,
): void {
  const rowCount = shape[0] ?? 0;
  const width = rowCount === 0 ? 0 : thetaI.length / rowCount;
  for (const row of rows) {
    if (!Number.isInteger(row) || row < 0 || row >= rowCount) throw new RangeError(`token id ${row} is not a row of a [${shape.join(', ')}] tensor`);
    for (let i = row * width; i < (row + 1) * width; i++) {
      out[i] = (thetaI[i] as number) + strength * ((thetaT[i] as number) - (thetaI[i] as number));
    }
  }
}
