/**
 * CRANE's rules for the tensors that bypass the three stages (reference values in
 * protocol/settings-defaults.ts: thinkRows 0.8, lmHeadScale 0.03, routerAlphaFraction 1/3).
 *
 *   editEmbedding(thetaI, thetaT, shape, tokens, special)  θ_I; <think>/</think> rows thinkRows of the way to θ_T
 *   editLmHead(thetaI, thetaT, shape, tokens, special)     θ_I + lmHeadScale·δ; protected rows θ_I; think rows θ_I + thinkRows·δ
 *   editRouter(thetaI, thetaT, alpha, special)             SLERP(θ_I, θ_T, α·routerAlphaFraction) over the flattened tensor
 *
 * Token ids always come from the caller (tokens.special: the tokenizer's added tokens but the
 * think pair, with the user's edits; protocol/protected-tokens.ts); nothing here knows a
 * vocabulary. An id past the tensor's rows (only a user-added one can be: the tokenizer's are
 * checked against the embedding at load) is skipped, as the reference does, and named in the
 * edit's note. A token listed both as protected and as think gets the think rule (it is applied
 * last), as in the reference, where the two lists are disjoint anyway.
 */
import { formatIdRanges } from '../protocol/protected-tokens.ts';
import type { SpecialTensorSettings, TokenRows } from '../protocol/settings-schemas.ts';
import { slerpInto } from './slerp.ts';
import type { EditedValues } from './tensor-pair.ts';

export function editEmbedding(
  thetaI: Float32Array,
  thetaT: Float32Array,
  shape: readonly number[],
  tokens: Pick<TokenRows, 'think'>,
  special: Pick<SpecialTensorSettings, 'thinkRows'>,
): EditedValues {
  const out = Float32Array.from(thetaI);
  return withSkipped(out, shape, blendRows(out, thetaI, thetaT, shape, tokens.think, special.thinkRows));
}

export function editLmHead(
  thetaI: Float32Array,
  thetaT: Float32Array,
  shape: readonly number[],
  tokens: TokenRows,
  special: Pick<SpecialTensorSettings, 'thinkRows' | 'lmHeadScale'>,
): EditedValues {
  const scale = special.lmHeadScale;
  const out = new Float32Array(thetaI.length);
  for (let i = 0; i < out.length; i++) out[i] = (thetaI[i] as number) + scale * ((thetaT[i] as number) - (thetaI[i] as number));
  const skipped = [
    ...blendRows(out, thetaI, thetaT, shape, tokens.special, 0),
    ...blendRows(out, thetaI, thetaT, shape, tokens.think, special.thinkRows),
  ];
  return withSkipped(out, shape, skipped);
}

export function editRouter(thetaI: Float32Array, thetaT: Float32Array, alpha: number, special: Pick<SpecialTensorSettings, 'routerAlphaFraction'>): Float32Array {
  const out = new Float32Array(thetaI.length);
  slerpInto(thetaI, thetaT, alpha * special.routerAlphaFraction, out);
  return out;
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
      out[i] = (thetaI[i] as number) + strength * ((thetaT[i] as number) - (thetaI[i] as number));
    }
  }
  return skipped;
}
