import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { rainAlignLeak, type RainPromptSpans } from './rain-align-leak.ts';
import { referenceAlignLeak } from './testing/reference-rain.ts';

/** Causal softmax rows of random scores: what a head's attention looks like. */
function causalRows(random: SeededRandom, t: number): number[][] {
  return Array.from({ length: t }, (_, i) => {
    const e = Array.from({ length: i + 1 }, () => Math.exp(2 * random.normal()));
    const total = e.reduce((s, v) => s + v, 0);
    return Array.from({ length: t }, (_, j) => (j <= i ? (e[j] as number) / total : 0));
  });
}

describe('RAIN alignment and leak of one head on one prompt', () => {
  const t = 9;
  const rows = causalRows(new SeededRandom(5), t);
  const attention = Float64Array.from(rows.flat());

  it('equals masked bilinear forms over two instructions, global unrelated spans and indices past the cut', () => {
    const spans: RainPromptSpans = {
      instructions: [
        { instruction: [6, 7], related: [1, 2, 6, 7, 8], unrelated: [3], relatedCount: 2, unrelatedCount: 1 },
        // index 12 lies past T = 9 (a span cut off by the token limit): it counts nowhere
        { instruction: [8, 12], related: [4, 12], unrelated: [], relatedCount: 3, unrelatedCount: 0 },
      ],
      globalUnrelated: [0, 5, 11],
      globalUnrelatedCount: 2,
    };
    const ours = rainAlignLeak(attention, t, spans);
    const expected = referenceAlignLeak(rows, spans.instructions.map((k) => ({ i: k.instruction, r: k.related, u: k.unrelated, rCount: k.relatedCount, uCount: k.unrelatedCount })), spans.globalUnrelated, spans.globalUnrelatedCount);
    expect(ours.alignment).toBeCloseTo(expected.a, 12);
    expect(ours.leak).toBeCloseTo(expected.u, 12);
    // hand check of one term: instruction 2's row 8 reading position 4, over 3 related spans
    const second = rainAlignLeak(attention, t, { ...spans, instructions: [spans.instructions[1] as RainPromptSpans['instructions'][number]], globalUnrelated: [] });
    expect(second.alignment).toBeCloseTo((rows[8] as number[])[4] as number / 3, 12);
  });

  it('gives 0 for a prompt without instructions or whose instruction tokens were all cut', () => {
    expect(rainAlignLeak(attention, t, { instructions: [], globalUnrelated: [1], globalUnrelatedCount: 1 })).toEqual({ alignment: 0, leak: 0 });
    const cut = rainAlignLeak(attention, t, { instructions: [{ instruction: [20], related: [1], unrelated: [2], relatedCount: 1, unrelatedCount: 1 }], globalUnrelated: [3], globalUnrelatedCount: 1 });
    expect(cut).toEqual({ alignment: 0, leak: 0 });
  });

  it('refuses attention rows of the wrong size', () => {
    expect(() => rainAlignLeak(new Float64Array(10), 3, { instructions: [], globalUnrelated: [], globalUnrelatedCount: 0 })).toThrow(/10 values, expected 3×3/);
  });
});
