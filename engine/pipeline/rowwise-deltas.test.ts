/**
 * lm_head's blend Δ formed by rows (rowwise-deltas.ts) on a real untied pair with think and
 * protected rows (testing/delta-pair.ts): blocks of 3 rows, ending mid-tensor, put together are
 * the whole tensor's Δ gathered by tensorDeltas and the whole edit's (crane/testing/whole-deltas.ts)
 * bit for bit; so are rows asked out of order and repeated (a batch's labels), and rows formed from
 * θ_I's rows the caller read (left as they were); a worker's basis rebuilt from rowwiseRecipe
 * after a structured clone forms the same bits.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editDirectionsOf } from '../crane/edit-directions.ts';
import { wholeDeltas } from '../crane/testing/whole-deltas.ts';
import { gatherRows } from '../model/head.ts';
import { rowwiseDeltas, rowwiseRecipe, type RowwiseDelta } from './rowwise-deltas.ts';
import { tensorDeltas } from './tensor-deltas.ts';
import { writeDeltaPair, type DeltaPair } from './testing/delta-pair.ts';

const LM_HEAD = 'lm_head.weight';
let root: string;
let pair: DeltaPair;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'crane-rowwise-deltas-'));
  pair = await writeDeltaPair(root);
});
afterAll(async () => {
  await pair.instruct.close();
  await pair.thinking.close();
  await rm(root, { recursive: true, force: true });
});

const bytes = (values: Float32Array) => new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
const range = (first: number, count: number) => Int32Array.from({ length: count }, (_, k) => first + k);

/** The rowwise Δ over every row, formed `blockRows` rows at a time. */
async function inBlocks(delta: RowwiseDelta, rowCount: number, width: number, blockRows: number): Promise<Float32Array> {
  const out = new Float32Array(rowCount * width);
  for (let first = 0; first < rowCount; first += blockRows) out.set(await delta.rowsOf(range(first, Math.min(blockRows, rowCount - first))), first * width);
  return out;
}

describe('rowwise deltas', () => {
  it('are lm_head.blend alone, its blocks of rows the whole tensor\'s Δ bit for bit, zero on the think and protected rows', async () => {
    const { shape } = pair.instruct.tensor(LM_HEAD);
    const [rowCount, width] = shape as [number, number];
    const rowwise = rowwiseDeltas(pair, pair.basis, LM_HEAD);
    const blend = pair.basis.directions.findIndex((d) => d.key === 'lm_head.blend');
    expect(rowwise.map((d) => d.direction)).toEqual([blend]);
    for (const name of ['model.embed_tokens.weight', 'model.layers.0.self_attn.q_proj.weight', 'model.norm.weight']) expect(rowwiseDeltas(pair, pair.basis, name)).toEqual([]);

    const gathered = (await tensorDeltas(pair, pair.basis, LM_HEAD)).find((d) => d.direction === blend);
    const [thetaI, thetaT] = [await pair.instruct.readFloat32(LM_HEAD), await pair.thinking.readFloat32(LM_HEAD)];
    const whole = wholeDeltas(pair.basis, LM_HEAD, shape, thetaI, thetaT).find((d) => d.direction === blend);
    expect(rowCount % 3).not.toBe(0); // the last block is short
    const formed = await inBlocks(rowwise[0] as RowwiseDelta, rowCount, width, 3);
    expect(bytes(formed)).toEqual(bytes(gathered?.values as Float32Array));
    expect(bytes(formed)).toEqual(bytes(whole?.delta as Float32Array));
    // the rows the edit leaves alone (think, protected) are there to be left alone, and every other row moves
    const { think, special } = pair.basis.recipe.tokens;
    const still = [...new Set([...think, ...special])].filter((id) => id < rowCount);
    expect(still.length).toBeGreaterThanOrEqual(2);
    const zero = (r: number) => formed.subarray(r * width, (r + 1) * width).every((v) => v === 0);
    expect(still.every(zero)).toBe(true);
    expect(range(0, rowCount).filter((r) => !zero(r)).length).toBe(rowCount - still.length);
  });

  it('form rows asked out of order and repeated, or from θ_I rows given, as the same bits', async () => {
    const [rowCount, width] = pair.instruct.tensor(LM_HEAD).shape as [number, number];
    const [delta] = rowwiseDeltas(pair, pair.basis, LM_HEAD) as [RowwiseDelta];
    const all = await delta.rowsOf(range(0, rowCount));
    const { think, special } = pair.basis.recipe.tokens;
    const labels = [rowCount - 1, 5, special[0] ?? 0, 5, think[0] ?? 0, 2];
    expect(bytes(await delta.rowsOf(labels))).toEqual(bytes(gatherRows(all, labels, width)));
    const ids = range(4, 6);
    const thetaI = await pair.instruct.readRowsFloat32(LM_HEAD, ids);
    const before = Float32Array.from(thetaI);
    expect(bytes(await delta.rowsOf(ids, thetaI))).toEqual(bytes(all.subarray(4 * width, 10 * width)));
    expect(bytes(thetaI)).toEqual(bytes(before));
  });

  it('come out the same from a basis a worker rebuilds from the cloned rowwise recipe (no projectors, no gate table)', async () => {
    const recipe = structuredClone(rowwiseRecipe(pair.basis.recipe));
    expect(recipe.projectors.size).toBe(0);
    const basis = editDirectionsOf(recipe);
    expect(basis.directions).toEqual(pair.basis.directions);
    const rowCount = pair.instruct.tensor(LM_HEAD).shape[0] as number;
    const [here, there] = [rowwiseDeltas(pair, pair.basis, LM_HEAD), rowwiseDeltas(pair, basis, LM_HEAD)] as [RowwiseDelta[], RowwiseDelta[]];
    expect(there.map((d) => d.direction)).toEqual(here.map((d) => d.direction));
    expect(bytes(await (there[0] as RowwiseDelta).rowsOf(range(0, rowCount)))).toEqual(bytes(await (here[0] as RowwiseDelta).rowsOf(range(0, rowCount))));
  });
});
