import { describe, expect, it } from 'vitest';
import { ModelTokenizer } from '../calibration/tokenizer.ts';
import { craneEdit } from '../crane/crane-edit.ts';
import { QWEN3_TOKENIZER_DIR } from '../io/testing/qwen3-tokenizer.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { tokenRowsOf } from './edit-method.ts';

/** Qwen3's lm_head rows: 151,936 (the config's vocab_size, past the tokenizer's 151,669 ids). */
const ROWS = 151_936;
const WIDTH = 2;

describe('token rows of the real Qwen3 tokenizer through the edit', () => {
  it('keeps rows 151643–151666 (tool-call rows included) at θ_I, moves the think pair 0.8 and the rest 0.03·δ', async () => {
    const tokens = tokenRowsOf((await ModelTokenizer.load(QWEN3_TOKENIZER_DIR)).source.tokenizerJson);
    // The reference's list: 151643…151668 without <think> (151667) and </think> (151668).
    const reference = Array.from({ length: 26 }, (_, i) => 151643 + i).filter((id) => id !== 151667 && id !== 151668);
    expect(tokens).toEqual({ think: [151667, 151668], special: reference });

    const thetaI = Float32Array.from({ length: ROWS * WIDTH }, (_, i) => (i % 97) / 16);
    const thetaT = thetaI.map((v) => v + 1);
    const edit = craneEdit(defaultResolvedSettings(tokens), { gate: null, projector: () => undefined });
    const lmHead = edit('lm_head.weight', [ROWS, WIDTH], thetaI, thetaT);
    const embedding = edit('model.embed_tokens.weight', [ROWS, WIDTH], thetaI, thetaT);
    expect(lmHead.note).toBeUndefined();
    const moved = (values: Float32Array, row: number) => (values[row * WIDTH] as number) - (thetaI[row * WIDTH] as number);
    for (const row of [0, 151642, 151669, ROWS - 1]) {
      expect(moved(lmHead.values, row)).toBeCloseTo(0.03, 6);
      expect(moved(embedding.values, row)).toBe(0);
    }
    for (const row of reference) {
      expect(moved(lmHead.values, row)).toBe(0);
      expect(moved(embedding.values, row)).toBe(0);
    }
    for (const row of tokens.think) {
      expect(moved(lmHead.values, row)).toBeCloseTo(0.8, 6);
      expect(moved(embedding.values, row)).toBeCloseTo(0.8, 6);
    }
  });
});
