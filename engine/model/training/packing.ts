/**
 * Packs tokenized chats end to end into fixed-length windows for training, so every step runs a
 * few long sequences instead of many short ones (per-op overhead dominates small matmuls on
 * wasm). A chat may straddle two windows; its tokens keep their own loss mask.
 */
import type { LossSequence } from '../layer-grads.ts';

export interface MaskedTokens {
  readonly ids: readonly number[];
  /** 1 where the token is a training target. */
  readonly lossMask: ArrayLike<number>;
}

export function packWindows(chats: readonly MaskedTokens[], windowLength: number): LossSequence[] {
  const windows: LossSequence[] = [];
  let ids: number[] = [];
  let targets: number[] = [];
  for (const chat of chats) {
    for (let t = 0; t < chat.ids.length; t++) {
      ids.push(chat.ids[t] as number);
      targets.push(chat.lossMask[t] as number);
      if (ids.length === windowLength) {
        if (targets.slice(1).some((x) => x === 1)) windows.push({ ids, targets });
        ids = [];
        targets = [];
      }
    }
  }
  return windows;
}
