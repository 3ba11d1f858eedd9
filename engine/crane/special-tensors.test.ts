import { describe, expect, it } from 'vitest';
import { DEFAULT_SPECIAL_TENSORS } from '../protocol/settings-defaults.ts';
import { routerSlerpInto } from './slerp.ts';
import { editEmbedding, editLmHead, editRouter, tokenRowEdit } from './special-tensors.ts';

const norm = (a: Float32Array) => Math.hypot(...a);

describe('routerSlerpInto', () => {
  const a = Float32Array.of(1, 0);
  const b = Float32Array.of(0, 1);
  const at = (t: number, x = a, y = b) => {
    const out = new Float32Array(x.length);
    routerSlerpInto(x, y, t, out);
    return out;
  };

  it('returns θ_I at t = 0 and θ_T at t = 1', () => {
    const x = Float32Array.of(0.3, -1.2, 2);
    const y = Float32Array.of(-0.7, 0.4, 1.1);
    at(0, x, y).forEach((v, i) => expect(v).toBeCloseTo(x[i] as number, 6));
    at(1, x, y).forEach((v, i) => expect(v).toBeCloseTo(y[i] as number, 6));
  });

  it('moves along the arc: equal norms are preserved, the midpoint of a right angle is (1,1)/√2', () => {
    const mid = at(0.5);
    expect(mid[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(mid[1]).toBeCloseTo(Math.SQRT1_2, 6);
    for (const t of [0.1, 0.33, 0.9]) expect(norm(at(t))).toBeCloseTo(1, 6);
    // Linear interpolation would shrink the midpoint to norm √2/2.
    expect(norm(mid)).toBeGreaterThan(0.99);
  });

  it('falls back to linear interpolation when cos θ > 0.9995 and when a vector is zero', () => {
    const x = Float32Array.of(1, 0);
    const y = Float32Array.of(1, 0.01); // cos ≈ 0.99995
    const out = at(0.5, x, y);
    expect(out[1]).toBeCloseTo(0.005, 7);
    expect(Array.from(at(0.25, Float32Array.of(0, 0), Float32Array.of(4, 8)))).toEqual([1, 2]);
  });
});

describe('special tensors', () => {
  const special = DEFAULT_SPECIAL_TENSORS;
  // 4 tokens × 2: θ_I rows (1,1), (2,2), (3,3), (4,4); θ_T = θ_I + 10.
  const thetaI = Float32Array.of(1, 1, 2, 2, 3, 3, 4, 4);
  const thetaT = thetaI.map((v) => v + 10);
  const shape = [4, 2];

  it('embedding: θ_I except the think rows, which move 0.8 of the way to θ_T', () => {
    expect(editEmbedding(thetaI, thetaT, shape, { think: [1, 3] }, special)).toEqual({ values: Float32Array.of(1, 1, 10, 10, 3, 3, 12, 12) });
  });

  it('lm_head: θ_I + 0.03·δ; protected rows reset to θ_I; think rows θ_I + 0.8·δ', () => {
    const out = editLmHead(thetaI, thetaT, shape, { think: [3], special: [0] }, special).values;
    expect(Array.from(out.subarray(0, 2))).toEqual([1, 1]);
    expect(out[2]).toBeCloseTo(2.3, 6);
    expect(out[4]).toBeCloseTo(3.3, 6);
    expect(Array.from(out.subarray(6))).toEqual([12, 12]);
  });

  it('token ids are parameters: none given, no row special', () => {
    const out = editLmHead(thetaI, thetaT, shape, { think: [], special: [] }, special);
    expect(out.note).toBeUndefined();
    out.values.forEach((v, i) => expect(v).toBeCloseTo((thetaI[i] as number) + 0.3, 6));
  });

  it('skips ids past the rows, as the reference does, and names them in the note', () => {
    const lmHead = editLmHead(thetaI, thetaT, shape, { think: [3], special: [0, 4, 5, 9] }, special);
    expect(lmHead.values).toEqual(editLmHead(thetaI, thetaT, shape, { think: [3], special: [0] }, special).values);
    expect(lmHead.note).toBe('token ids 4–5, 9 are not rows of this [4, 2] tensor: skipped');
    expect(editEmbedding(thetaI, thetaT, shape, { think: [4] }, special)).toEqual({ values: thetaI, note: 'token ids 4 are not rows of this [4, 2] tensor: skipped' });
  });

  it('router: SLERP over the flattened tensor with t = α · routerAlphaFraction (1/3 by default)', () => {
    const i = Float32Array.of(1, 0, 0, 0);
    const t = Float32Array.of(0, 0, 0, 1);
    const out = editRouter(i, t, [2, 2], 1.5, special); // t = 0.5 on a right angle
    expect(out[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(out[3]).toBeCloseTo(Math.SQRT1_2, 6);
    const whole = editRouter(i, t, [2, 2], 0.5, { routerAlphaFraction: 1 }); // t = 0.5 again
    expect(Array.from(whole)).toEqual(Array.from(out));
    expect(Array.from(editRouter(i, t, [2, 2], 0, special))).toEqual([1, 0, 0, 0]);
  });

  // crane_merge.py slerp_tensor: `if a.dim() == 1: return torch.lerp(a, b, t)`, then
  // `if na == 0 or nb == 0: return b if na == 0 else a`.
  it('router edge rules as the reference: a 1-D router is lerped, a zero side gives the other side', () => {
    const i = Float32Array.of(1, 0);
    const t = Float32Array.of(0, 1);
    // t = 0.5: lerp (0.5, 0.5), where SLERP of this right angle would give (√½, √½).
    expect(Array.from(editRouter(i, t, [2], 1.5, special))).toEqual([0.5, 0.5]);
    const zero = new Float32Array(2);
    expect(Array.from(editRouter(zero, t, [1, 2], 1.5, special))).toEqual([0, 1]); // θ_I = 0 → θ_T, not 0.5·θ_T
    expect(Array.from(editRouter(i, zero, [1, 2], 1.5, special))).toEqual([1, 0]); // θ_T = 0 → θ_I
    expect(Array.from(editRouter(zero, zero, [1, 2], 1.5, special))).toEqual([0, 0]);
  });

  // Hand-computed bf16 (7 fraction bits): 1 + 2⁻⁷ is one unit above 1, 1 + 2⁻⁸ a tie.
  it("arith 'reference': inputs cast to bf16, each op of θ_I + s·δ rounded to bf16, protected rows θ_I", () => {
    const i = Float32Array.of(1, -0, 1, 1 + 2 ** -8);
    const t = Float32Array.of(2, 5, 1 + 2 ** -6, 1);
    const ids = { think: [1], special: [0] };
    const out = editLmHead(i, t, [2, 2], ids, { thinkRows: 0.8, lmHeadScale: 0.5 }, 'reference').values;
    expect(Array.from(out.subarray(0, 2))).toEqual([1, -0]); // protected: θ_I itself, −0 kept
    // δ = 2⁻⁶; 0.8·2⁻⁶ = 0.0125 → bf16 205·2⁻¹⁴ = 0.01251220703125; 1 + that is 1.6 units of 2⁻⁷
    // above 1 → bf16 1 + 2⁻⁶ (float32 would keep 1.0125).
    expect(out[2]).toBe(1 + 2 ** -6);
    // θ_I = 1 + 2⁻⁸ casts to 1 (tie to even) so δ = 0 and the row stays 1.
    expect(out[3]).toBe(1);
    expect(Array.from(editLmHead(i, t, [2, 2], ids, { thinkRows: 0.8, lmHeadScale: 0.5 }).values.subarray(2))).toEqual([Math.fround(1.0125), Math.fround(1.00078125)]);
    expect(Array.from(editRouter(Float32Array.of(1 + 2 ** -8, 0), Float32Array.of(0, 0), [1, 2], 1, special, 'reference'))).toEqual([1, 0]);
  });

  it('takes the think-row and lm_head strengths from the settings', () => {
    const out = editLmHead(thetaI, thetaT, shape, { think: [3], special: [] }, { thinkRows: 0.5, lmHeadScale: 0 }).values;
    expect(Array.from(out)).toEqual([1, 1, 2, 2, 3, 3, 9, 9]);
    expect(Array.from(editEmbedding(thetaI, thetaT, shape, { think: [0] }, { thinkRows: 1 }).values.subarray(0, 2))).toEqual([11, 11]);
  });

  it('tokenRowEdit: any range of the values, edited alone, is that range of the whole edit (rows split across ranges, think over protected)', () => {
    const [rows, width] = [6, 5];
    const i = Float32Array.from({ length: rows * width }, (_, k) => Math.sin(k + 1));
    const t = Float32Array.from({ length: rows * width }, (_, k) => Math.cos(3 * k));
    const tokens = { think: [2, 9], special: [0, 2, 4, 7] };
    for (const arith of ['f32', 'reference'] as const) {
      const whole = { embedding: editEmbedding(i, t, [rows, width], tokens, special, arith), lm_head: editLmHead(i, t, [rows, width], tokens, special, arith) };
      for (const rule of ['embedding', 'lm_head'] as const) {
        const edit = tokenRowEdit(rule, [rows, width], tokens, special, arith);
        for (const [from, to] of [[0, 30], [3, 12], [7, 8], [12, 29]] as const) {
          const part = edit(i.slice(from, to), t.slice(from, to), from, true);
          expect(Array.from(part.values), `${rule} ${arith} [${from}, ${to})`).toEqual(Array.from(whole[rule].values.subarray(from, to)));
          expect(part.note).toBe(whole[rule].note);
        }
      }
      // Row 2 is protected and think: the think blend (0.8 of the way) wins.
      expect(whole.lm_head.values[10]).toBeCloseTo((i[10] as number) + 0.8 * ((t[10] as number) - (i[10] as number)), 2);
    }
  });

  it('an id listed twice is one row, its rule applied once: whole tensor, handed over or not, and any range', () => {
    const [rows, width] = [6, 5];
    const i = Float32Array.from({ length: rows * width }, (_, k) => Math.sin(k + 1));
    const t = Float32Array.from({ length: rows * width }, (_, k) => Math.cos(3 * k));
    const once = { think: [2, 3, 9], special: [0, 2, 4, 7] };
    const repeated = { think: [3, 2, 3, 9, 9], special: [4, 0, 2, 4, 7, 7] };
    for (const arith of ['f32', 'reference'] as const) {
      const expected = { embedding: editEmbedding(i, t, [rows, width], once, special, arith), lm_head: editLmHead(i, t, [rows, width], once, special, arith) };
      const handed = {
        embedding: editEmbedding(i.slice(), t.slice(), [rows, width], repeated, special, arith, true),
        lm_head: editLmHead(i.slice(), t.slice(), [rows, width], repeated, special, arith, true),
      };
      for (const rule of ['embedding', 'lm_head'] as const) {
        expect(Array.from(handed[rule].values), `${rule} ${arith}, handed over`).toEqual(Array.from(expected[rule].values));
        expect(handed[rule].note).toBe(expected[rule].note);
        const edit = tokenRowEdit(rule, [rows, width], repeated, special, arith);
        for (const [from, to] of [[0, 30], [12, 19]] as const) {
          expect(Array.from(edit(i.slice(from, to), t.slice(from, to), from, true).values), `${rule} ${arith} [${from}, ${to})`).toEqual(Array.from(expected[rule].values.subarray(from, to)));
        }
      }
      // Row 3, think: 0.8 of the way once (twice would be 0.96).
      expect(expected.embedding.values[15]).toBeCloseTo((i[15] as number) + 0.8 * ((t[15] as number) - (i[15] as number)), 2);
    }
  });
});

