/**
 * One type for "the edit to build" across verify and the CLI, and the PairedEdit it gives.
 *
 *   EditMethod = { method: 'crane', settings: ResolvedCraneSettings } | BaselineSettings
 *   editFor(method, context) → PairedEdit
 *   tokenRowsOf(tokenizerJson) → TokenRows   <think>/</think> by content, the other added tokens protected
 */
import { addedTokensOf, tokenIdOf } from '../calibration/token-table.ts';
import { FORMAT_TOKENS } from '../calibration/tokenizer.ts';
import type { JsonObject } from '../calibration/tokenizer-source.ts';
import { baselineEdit, type BaselineSettings } from '../crane/baselines.ts';
import { craneEdit, type CraneContext } from '../crane/crane-edit.ts';
import type { PairedEdit } from '../crane/tensor-pair.ts';
import { tokenRowsFromAdded } from '../protocol/protected-tokens.ts';
import type { ResolvedCraneSettings, TokenRows } from '../protocol/settings-schemas.ts';

export type EditMethod = { readonly method: 'crane'; readonly settings: ResolvedCraneSettings } | BaselineSettings;

export function editFor(method: EditMethod, context: CraneContext | null): PairedEdit {
  if (method.method !== 'crane') return baselineEdit(method);
  return craneEdit(method.settings, context ?? { gate: null, projector: () => undefined });
}

/**
 * The think pair wherever the tokenizer has it (added or in the vocabulary); every other added
 * token is protected, special or not, as the reference does.
 */
export function tokenRowsOf(tokenizerJson: JsonObject): TokenRows {
  const think = [FORMAT_TOKENS.think, FORMAT_TOKENS.thinkEnd].map((t) => tokenIdOf(tokenizerJson, t)).filter((id): id is number => id !== undefined);
  return { think, special: tokenRowsFromAdded(addedTokensOf(tokenizerJson)).special };
}
