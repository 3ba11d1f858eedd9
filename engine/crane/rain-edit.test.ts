import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { projectTaskSlice, type RankOneConstraints } from './rain-projection.ts';
import { applyRainSlices, rainTaskSlice, type RainProjectionKind } from './rain-edit.ts';
import { referenceRainMerge, type ReferenceHead } from './testing/reference-rain.ts';

interface RainHeadEdit { readonly head: number; readonly alpha: number; readonly constraints: RankOneConstraints }

interface EditInput {
  readonly kind: RainProjectionKind; readonly name: string; readonly shape: readonly [number, number];
  readonly base: Float32Array; readonly instruct: Float32Array; readonly thinking: Float32Array;
  readonly headDim: number; readonly kvHeads: number; readonly heads: readonly RainHeadEdit[]; readonly ridge: number;
}

/** Stage 3 as the pipeline runs it: slice τ per head, project it, add α times it to thinking. */
function rainAttentionEdit(input: EditInput): Float32Array {
  const [dModel] = input.kind === 'o' ? input.shape : [input.shape[1]];
  const slices = input.heads.map((edit) => ({
    head: edit.head,
    alpha: edit.alpha,
    slice: projectTaskSlice(rainTaskSlice(input, input.base, input.instruct, edit.head), dModel, input.headDim, edit.constraints, input.ridge),
  }));
  return applyRainSlices(input, input.thinking, slices);
}

const HEAD_DIM = 2;
const HEADS = 4;
const KV_HEADS = 2;
const D_MODEL = 5;

function shapeOf(kind: RainProjectionKind): [number, number] {
  if (kind === 'o') return [D_MODEL, HEADS * HEAD_DIM];
  return [(kind === 'q' ? HEADS : KV_HEADS) * HEAD_DIM, D_MODEL];
}

function headEdits(random: SeededRandom, heads: readonly number[]): { ours: RainHeadEdit[]; reference: ReferenceHead[] } {
  const ours: RainHeadEdit[] = [];
  const reference: ReferenceHead[] = [];
  heads.forEach((head, i) => {
    const m = 1 + (i % 3);
    const x = Array.from({ length: m }, () => Array.from({ length: D_MODEL }, () => random.normal()));
    const r = Array.from({ length: m }, () => Array.from({ length: HEAD_DIM }, () => random.normal()));
    const s = Array.from({ length: m }, () => 0.5 + random.next());
    const alpha = 1.5 * random.next();
    ours.push({ head, alpha, constraints: { count: m, inputs: Float64Array.from(x.flat()), partners: Float64Array.from(r.flat()), scales: Float64Array.from(s) } });
    reference.push({ head, alpha, x, r, s });
  });
  return { ours, reference };
}

describe('RAIN edit of one attention projection', () => {
  it.each(['q', 'k', 'v', 'o'] as const)('%s_proj equals the per-element reference (GQA: 4 query heads on 2 kv heads)', (kind) => {
    const random = new SeededRandom(kind.charCodeAt(0));
    const shape = shapeOf(kind);
    const size = shape[0] * shape[1];
    const base = random.normals(size, 1);
    const instruct = random.normals(size, 1);
    const thinking = random.normals(size, 1);
    // heads 0 and 2 share kv head 0 (h mod kvHeads), so k/v get two edits on the same rows
    const { ours, reference } = headEdits(random, [0, 2, 3]);
    const merged = rainAttentionEdit({ kind, name: `layers.0.self_attn.${kind}_proj.weight`, shape, base, instruct, thinking, headDim: HEAD_DIM, kvHeads: KV_HEADS, heads: ours, ridge: 1e-4 });
    const expected = referenceRainMerge(kind, shape[0], shape[1], Array.from(base), Array.from(instruct), Array.from(thinking), HEAD_DIM, KV_HEADS, reference, 1e-4);
    merged.forEach((v, k) => expect(v).toBeCloseTo(expected[k] ?? NaN, 5));
  });

  it('keeps the thinking weights of heads without an edit and with α = 0', () => {
    const random = new SeededRandom(3);
    const shape = shapeOf('q');
    const [base, instruct, thinking] = [random.normals(40, 1), random.normals(40, 1), random.normals(40, 1)];
    const { ours } = headEdits(random, [1]);
    const zeroAlpha = ours.map((edit) => ({ ...edit, alpha: 0 }));
    expect(Array.from(rainAttentionEdit({ kind: 'q', name: 'q', shape, base, instruct, thinking, headDim: HEAD_DIM, kvHeads: KV_HEADS, heads: zeroAlpha, ridge: 1e-4 }))).toEqual(Array.from(thinking));
    const merged = rainAttentionEdit({ kind: 'q', name: 'q', shape, base, instruct, thinking, headDim: HEAD_DIM, kvHeads: KV_HEADS, heads: ours, ridge: 1e-4 });
    // head 1 owns rows 2..3 of q_proj; every other row is untouched
    for (let row = 0; row < shape[0]; row++) {
      const same = Array.from(merged.subarray(row * D_MODEL, (row + 1) * D_MODEL)).every((v, c) => v === thinking[row * D_MODEL + c]);
      expect(same).toBe(row < 2 || row > 3);
    }
  });

  it('refuses a checkpoint of the wrong size and a head outside the tensor, naming the tensor', () => {
    const shape = shapeOf('k');
    const ok = new Float32Array(shape[0] * shape[1]);
    const { ours } = headEdits(new SeededRandom(1), [0]);
    const input = { kind: 'k' as const, name: 'layers.3.self_attn.k_proj.weight', shape, base: ok, instruct: ok, thinking: ok, headDim: HEAD_DIM, kvHeads: KV_HEADS, heads: ours, ridge: 1e-4 };
    expect(() => rainAttentionEdit({ ...input, base: new Float32Array(3) })).toThrow(/layers\.3\.self_attn\.k_proj\.weight: base has 3 values/);
    // head 2 of 3 kv heads starts at row 4 of a 4-row k_proj
    const headTwo = ours.map((edit) => ({ ...edit, head: 2 }));
    expect(() => rainAttentionEdit({ ...input, heads: headTwo, kvHeads: 3 })).toThrow(/k_proj\.weight: head 2 \(block 2\) lies outside 4×5/);
    expect(() => rainAttentionEdit({ ...input, heads: headTwo, kvHeads: 2 })).not.toThrow();
  });
});
