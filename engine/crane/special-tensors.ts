/**
 * CRANE's rules for the tensors that bypass the three stages (reference values in
 * protocol/settings-defaults.ts: thinkRows 0.8, lmHeadScale 0.03, routerAlphaFraction 1/3).
 *
 *   editEmbedding(thetaI, thetaT, shape, tokens, special)  θ_I; <think>/</think> rows thinkRows of the way to θ_T
 *   editLmHead(thetaI, thetaT, shape, tokens, special)     θ_I + lmHeadScale·δ; special rows θ_I; think rows θ_I + thinkRows·δ
 *   editRouter(thetaI, thetaT, alpha, special)             SLERP(θ_I, θ_T, α·routerAlphaFraction) over the flattened tensor
 *
 * Token ids always come from the caller (the tokenizer); nothing here knows a vocabulary.
 * An id outside the tensor's rows is a caller error and throws. A token listed both as
 * special and as think gets the think rule (it is applied last), as in the reference, where
 * the two lists are disjoint anyway.
 */
import type { SpecialTensorSettings, TokenRows } from '../protocol/settings-schemas.ts';
import { slerpInto } from './slerp.ts';

export function editEmbedding(
  thetaI: Float32Array,
  thetaT: Float32Array,
  shape: readonly number[],
  tokens: Pick<TokenRows, 'think'>,
  special: Pick<SpecialTensorSettings, 'thinkRows'>,
): Float32Array {
  const out = Float32Array.from(thetaI);
  blendRows(out, thetaI, thetaT, shape, tokens.think, special.thinkRows);
  return out;
}

export function editLmHead(
  thetaI: Float32Array,
  thetaT: Float32Array,
  shape: readonly number[],
  tokens: TokenRows,
  special: Pick<SpecialTensorSettings, 'thinkRows' | 'lmHeadScale'>,
): Float32Array {
  const scale = special.lmHeadScale;
  const out = new Float32Array(thetaI.length);
  for (let i = 0; i < out.length; i++) out[i] = (thetaI[i] as number) + scale * ((thetaT[i] as number) - (thetaI[i] as number));
  blendRows(out, thetaI, thetaT, shape, tokens.special, 0);
  blendRows(out, thetaI, thetaT, shape, tokens.think, special.thinkRows);
  return out;
}

export function editRouter(thetaI: Float32Array, thetaT: Float32Array, alpha: number, special: Pick<SpecialTensorSettings, 'routerAlphaFraction'>): Float32Array {
  const out = new Float32Array(thetaI.length);
  slerpInto(thetaI, thetaT, alpha * special.routerAlphaFraction, out);
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
