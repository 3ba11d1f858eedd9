/**
 * One tensor's Δ from a real pair on disk (testing/delta-pair.ts): every tensor's, the lm_head
 * read in blocks of 3 rows, is the Δ of the whole tensors (crane/testing/whole-deltas.ts), bit for bit, kept
 * row-sparse exactly when fewer than half its rows are nonzero; a basis rebuilt from its recipe
 * after a structured clone (what a worker thread gets) gives the same bits; lm_head.blend's is
 * left out when the passes form it by rows (rowwise); a router's are θ_I, θ_T.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editDirectionsOf } from '../crane/edit-directions.ts';
import { wholeDeltas } from '../crane/testing/whole-deltas.ts';
import type { TensorDelta } from './delta-store.ts';
import { movesTensor, PairReads, tensorDeltas } from './tensor-deltas.ts';
import { writeDeltaPair, type DeltaPair } from './testing/delta-pair.ts';

let root: string;
let pair: DeltaPair;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'crane-tensor-deltas-'));
  pair = await writeDeltaPair(root);
});
afterAll(async () => {
  await pair.instruct.close();
  await pair.thinking.close();
  await rm(root, { recursive: true, force: true });
});

/** A TensorDelta written out whole, as bytes. */
function wholeBytes(delta: TensorDelta, length: number): Uint8Array {
  if (delta.rows === undefined || delta.width === undefined) return new Uint8Array(delta.values.buffer, delta.values.byteOffset, delta.values.byteLength);
  const whole = new Float32Array(length);
  const { rows, width, values } = delta;
  rows.forEach((row, k) => whole.set(values.subarray(k * width, (k + 1) * width), row * width));
  return new Uint8Array(whole.buffer);
}

/** The rows of a whole Δ with a value other than ±0. */
function nonzeroRows(delta: Float32Array, rowCount: number): number[] {
  const width = delta.length / rowCount;
  return Array.from({ length: rowCount }, (_, r) => r).filter((r) => delta.subarray(r * width, (r + 1) * width).some((v) => v !== 0));
}

const bytes = (values: Float32Array) => new Uint8Array(values.buffer, values.byteOffset, values.byteLength);

describe('tensor deltas', () => {
  it('are the whole tensors\' Δ bit for bit, row-sparse exactly when under half the rows are nonzero (the lm_head read in blocks)', async () => {
    const forms = new Set<string>();
    const reads = new PairReads(); // reused tensor after tensor, as a thread's sequence of tensors reuses it
    const names = [...pair.instruct.tensors.keys()].filter((name) => movesTensor(pair, pair.basis, name, false));
    expect(names).toEqual(expect.arrayContaining(['model.embed_tokens.weight', 'lm_head.weight', 'model.layers.1.self_attn.q_proj.weight']));
    for (const name of names) {
      const { shape } = pair.instruct.tensor(name);
      const [thetaI, thetaT] = [await pair.instruct.readFloat32(name), await pair.thinking.readFloat32(name)];
      const whole = wholeDeltas(pair.basis, name, shape, thetaI, thetaT);
      const got = await tensorDeltas(pair, pair.basis, name, { blockValues: 3 * (shape[1] ?? 1), reads });
      expect(got.map((d) => d.direction)).toEqual(whole.map((d) => d.direction));
      got.forEach((delta, i) => {
        const expected = (whole[i] as (typeof whole)[number]).delta;
        expect(wholeBytes(delta, expected.length)).toEqual(bytes(expected));
        const rowCount = shape.length === 2 ? (shape[0] as number) : 0;
        const rows = rowCount < 2 ? [] : nonzeroRows(expected, rowCount);
        const sparse = rowCount >= 2 && rows.length * 2 < rowCount;
        expect(delta.rows === undefined ? undefined : Array.from(delta.rows)).toEqual(sparse ? rows : undefined);
        forms.add(sparse ? `${name} sparse` : 'whole');
      });
    }
    // Both forms came up: the think rows of the embedding and lm_head, every layer tensor and lm_head's blend whole.
    expect([...forms].sort()).toEqual(['lm_head.weight sparse', 'model.embed_tokens.weight sparse', 'whole']);
    expect(() => pair.basis.deltasOf('lm_head.weight', [1, 1], new Float32Array(1), new Float32Array(1))).toThrow(/lm_head\.weight is row-local/);
  });

  it('come out the same from a basis rebuilt from its structured-cloned recipe, as a worker thread rebuilds it', async () => {
    const clone = editDirectionsOf(structuredClone(pair.basis.recipe));
    expect(clone.directions).toEqual(pair.basis.directions);
    expect([...pair.basis.recipe.projectors.keys()].sort()).toEqual(['layer_0_attn_input', 'layer_0_ffn_input', 'layer_1_attn_input', 'layer_1_ffn_input']);
    for (const name of ['model.layers.0.self_attn.q_proj.weight', 'model.layers.1.mlp.up_proj.weight', 'model.layers.1.mlp.down_proj.weight', 'lm_head.weight']) {
      const [here, there] = [await tensorDeltas(pair, pair.basis, name), await tensorDeltas(pair, clone, name)];
      expect(there.map((d) => bytes(d.values))).toEqual(here.map((d) => bytes(d.values)));
    }
  });

  it('leave out a Δ over every row (lm_head.blend) when the passes form it by rows; the think rows\' stay the same bits', async () => {
    const name = 'lm_head.weight';
    const [all, rowwise] = [await tensorDeltas(pair, pair.basis, name), await tensorDeltas(pair, pair.basis, name, { rowwise: true })];
    const copy = (d: TensorDelta) => ({ direction: d.direction, values: Uint8Array.from(bytes(d.values)), rows: d.rows === undefined ? undefined : Array.from(d.rows) });
    expect(all.map((d) => d.rows === undefined)).toEqual([false, true]);
    expect(rowwise.map(copy)).toEqual(all.slice(0, 1).map(copy));
  });

  it('give a router its θ_I and θ_T at its two slots', async () => {
    const name = 'model.norm.weight';
    const [delta, thinking] = await tensorDeltas(pair, pair.basis, name, { routerSlot: 40 });
    expect([delta?.direction, thinking?.direction]).toEqual([40, 41]);
    expect(bytes(delta?.values as Float32Array)).toEqual(bytes(await pair.instruct.readFloat32(name)));
    expect(bytes(thinking?.values as Float32Array)).toEqual(bytes(await pair.thinking.readFloat32(name)));
  });
});
