import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baselineEdit } from '../crane/baselines.ts';
import { toBf16 } from '../crane/reference-arithmetic.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import type { TensorPayload } from '../io/tensor-encoding.ts';
import { encodeHalf } from '../io/half-float.ts';
import { seededFloats, withTempDir, writeFixtureCheckpoint, type FixtureTensor } from '../io/testing/fixtures.ts';
import { exportBuffers, produceEdited } from './edited-tensor.ts';
import { editsInBlocks, produceInBlocks } from './elementwise-tensor.ts';
import { planExport } from './export-plan.ts';
import { methodBlockEdits, methodEdit, type BlockEdits } from './method-edit.ts';
import type { RecipeMethod } from './recipe.ts';

const edit = baselineEdit({ method: 'task_arithmetic', lambda: 0.3 });
const blockEdits = methodBlockEdits({ method: 'task_arithmetic', lambda: 0.3 });
const taBlocks = (name: string, shape: readonly number[]) => blockEdits(name, shape) as NonNullable<ReturnType<BlockEdits>>;

/** A side: several blocks' worth of values (one odd-sized), BF16 and F16, and an F32 tensor (whole-tensor path). */
function side(seed: number, dtypes: { big: 'BF16' | 'F16'; odd: 'BF16' | 'F16' }, spoil?: { name: string; at: number; value: number }): FixtureTensor[] {
  const tensor = (name: string, dtype: 'BF16' | 'F16' | 'F32', shape: number[], s: number): FixtureTensor => {
    const values = seededFloats(shape.reduce((a, b) => a * b, 1), s);
    if (spoil?.name === name) values[spoil.at] = spoil.value;
    return { spec: { name, dtype, shape }, data: dtype === 'F32' ? values : encodeHalf(dtype, values) };
  };
  return [tensor('big', dtypes.big, [40, 1000], seed), tensor('odd', dtypes.odd, [16_385], seed + 1), tensor('f32', 'F32', [7], seed + 2)];
}

async function withPair<T>(root: string, instruct: FixtureTensor[], thinking: FixtureTensor[], body: (i: Checkpoint, t: Checkpoint) => Promise<T>): Promise<T> {
  const [i, t] = [await Checkpoint.open(await writeFixtureCheckpoint(join(root, 'i'), instruct)), await Checkpoint.open(await writeFixtureCheckpoint(join(root, 't'), thinking))];
  try {
    return await body(i, t);
  } finally {
    await i.close();
    await t.close();
  }
}

/** Every tensor of the pair produced through the export's buffers as `dtype`, block by block (with `blocks`) or not; `notes` gets the edit's notes. */
async function produceAll(i: Checkpoint, t: Checkpoint, blocks?: BlockEdits, paired = edit, notes: string[] = [], dtype: 'BF16' | 'F16' = 'BF16'): Promise<Map<string, Buffer>> {
  const plan = planExport(i, t, dtype);
  const buffers = exportBuffers(plan, i, t);
  try {
    const out = new Map<string, Buffer>();
    for (const planned of plan) {
      const produced: TensorPayload = await produceEdited(planned, i, t, paired, notes, buffers, blocks);
      // A float32 result (one the edit returned outside the buffers: reference arithmetic's) is narrowed by the writer.
      const payload = produced instanceof Float32Array ? encodeHalf(dtype, produced) : produced;
      out.set(planned.spec.name, Buffer.from(new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength)));
    }
    return out;
  } finally {
    await buffers.close();
  }
}

describe('produceInBlocks (an element-wise edit, block by block)', () => {
  it('writes the bytes the whole-tensor path writes, for BF16 and F16 sides, across block edges and an odd size', () => withTempDir(async (root) => {
    await withPair(root, side(1, { big: 'BF16', odd: 'F16' }), side(9, { big: 'BF16', odd: 'BF16' }), async (i, t) => {
      const plan = planExport(i, t, 'BF16');
      expect(new Map(plan.map((p) => [p.spec.name, editsInBlocks(p)]))).toEqual(new Map([['big', true], ['odd', true], ['f32', false]]));
      const [blocks, whole] = [await produceAll(i, t, blockEdits), await produceAll(i, t)];
      for (const [name, bytes] of whole) expect(blocks.get(name)?.equals(bytes), name).toBe(true);
    });
  }));

  it('reads in segments ahead of the edit (any segment size, one not a whole number of blocks) with the same bytes', () => withTempDir(async (root) => {
    await withPair(root, side(1, { big: 'BF16', odd: 'F16' }), side(9, { big: 'BF16', odd: 'BF16' }), async (i, t) => {
      const whole = await produceAll(i, t);
      const plan = planExport(i, t, 'BF16').filter(editsInBlocks);
      for (const segment of [1, 16_384, 20_000, 40_000]) {
        const buffers = exportBuffers(plan, i, t);
        try {
          for (const planned of plan) {
            const patterns = await produceInBlocks(planned, i, t, taBlocks(planned.spec.name, planned.spec.shape), [], buffers, segment);
            expect(Buffer.from(patterns.buffer, patterns.byteOffset, patterns.byteLength).equals(whole.get(planned.spec.name) as Buffer), `${planned.spec.name}, segment ${segment}`).toBe(true);
          }
        } finally {
          await buffers.close();
        }
      }
    });
  }));

  it.each([['instruct', 'i', 'contains'], ['thinking', 't', 'contains']] as const)('refuses a NaN or ±Inf in %s past the first block, naming its shard and the flat index', (which, folder, what) => withTempDir(async (root) => {
    const spoil = { name: 'big', at: 20_001, value: -Infinity };
    const [instruct, thinking] = which === 'instruct' ? [side(1, { big: 'BF16', odd: 'BF16' }, spoil), side(9, { big: 'BF16', odd: 'BF16' })] : [side(1, { big: 'BF16', odd: 'BF16' }), side(9, { big: 'BF16', odd: 'BF16' }, spoil)];
    await withPair(root, instruct, thinking, async (i, t) => {
      await expect(produceAll(i, t, blockEdits)).rejects.toThrow(`${join(root, folder, 'model.safetensors')}: tensor "big": ${what} -Infinity at flat index 20001; nothing was written`);
    });
  }));

  it('refuses an edit result that is not finite (finite inputs whose blend overflows), naming Instruct\'s shard', () => withTempDir(async (root) => {
    const huge = (sign: number): FixtureTensor[] => [{ spec: { name: 'big', dtype: 'BF16', shape: [3] }, data: encodeHalf('BF16', Float32Array.of(1, sign * 3e38, 1)) }];
    await withPair(root, huge(-1), huge(1), async (i, t) => {
      // θ_T − θ_I = 6e38 overflows float32 to Infinity.
      await expect(produceAll(i, t, blockEdits)).rejects.toThrow(/model\.safetensors: tensor "big": was edited into (-)?Infinity at flat index 1; nothing was written/);
    });
  }));
});

describe('produceInBlocks with CRANE (the embedding and lm_head rules, by the rows each block holds)', () => {
  const names = { embed: 'model.embed_tokens.weight', head: 'lm_head.weight', mlp: 'model.layers.0.mlp.up_proj.weight' };
  type Half = 'BF16' | 'F16';
  /** 40 rows of 1000: rows straddle the 16,384-value blocks; think rows 16 and 17 lie across the first block edge. */
  const crane = (seed: number, dtype: Half = 'BF16'): FixtureTensor[] => [names.embed, names.head, names.mlp].map((name, k) => {
    const shape = name === names.mlp ? [8, 16] : [40, 1000];
    return { spec: { name, dtype, shape }, data: encodeHalf(dtype, seededFloats(shape[0] as number * (shape[1] as number), seed + k)) };
  });
  // Protected 16 is also a think row (the think rule wins); 45 and 52 are past the rows (named in the note).
  const tokens = { think: [3, 16, 17, 52], special: [0, 16, 33, 45] };
  const defaults = defaultResolvedSettings(tokens);
  const noAnalysis = { ...defaults, stages: { ...defaults.stages, gate: false, gsp: false } };
  const craneMethod = (arith: 'f32' | 'reference', rows = tokens): RecipeMethod => ({ method: 'crane', settings: { ...noAnalysis, arith, tokens: rows } });

  it.each([
    ['f32', 'BF16', 'BF16', 'BF16'], ['reference', 'BF16', 'BF16', 'BF16'],
    ['f32', 'F16', 'F16', 'F16'], ['reference', 'F16', 'F16', 'F16'],
    ['f32', 'F16', 'BF16', 'F16'], ['reference', 'BF16', 'F16', 'BF16'],
  ] as const)('writes the whole-tensor path\'s bytes and notes (%s arithmetic; %s and %s in, %s out), at any segment size', (arith, dtypeI, dtypeT, out) => withTempDir(async (root) => {
    const method = craneMethod(arith);
    const paired = methodEdit(method, null, null);
    const blocks = methodBlockEdits(method);
    await withPair(root, crane(1, dtypeI), crane(9, dtypeT), async (i, t) => {
      expect([names.embed, names.head, names.mlp].map((name) => blocks(name, i.tensor(name).shape) !== undefined)).toEqual([true, true, false]);
      const [wholeNotes, blockNotes] = [[] as string[], [] as string[]];
      const whole = await produceAll(i, t, undefined, paired, wholeNotes, out);
      const inBlocks = await produceAll(i, t, blocks, paired, blockNotes, out);
      expect([...inBlocks.keys()]).toEqual([...whole.keys()]);
      for (const [name, bytes] of whole) expect(inBlocks.get(name)?.equals(bytes), name).toBe(true);
      expect(blockNotes).toEqual(wholeNotes);
      expect(wholeNotes).toEqual([
        `${names.embed}: token ids 52 are not rows of this [40, 1000] tensor: skipped`,
        `${names.head}: token ids 45, 52 are not rows of this [40, 1000] tensor: skipped`,
      ]);
      // The edit moved lm_head off θ_I everywhere but the protected rows (θ_I as `out`; cast to bf16 first under reference arithmetic).
      const thetaI = (await i.readFloat32(names.head)).subarray(0, 2000);
      const kept = encodeHalf(out, arith === 'reference' ? toBf16(thetaI) : thetaI);
      const head = whole.get(names.head) as Buffer;
      expect(head.subarray(0, 2000).equals(Buffer.from(kept.buffer, 0, 2000))).toBe(true);
      expect(head.subarray(2000, 4000).equals(Buffer.from(kept.buffer, 2000, 2000))).toBe(false);
      const plan = planExport(i, t, out).filter((p) => p.spec.name !== names.mlp);
      for (const segment of [1, 20_000, 40_000]) {
        const buffers = exportBuffers(plan, i, t);
        try {
          for (const planned of plan) {
            const patterns = await produceInBlocks(planned, i, t, blocks(planned.spec.name, planned.spec.shape) as NonNullable<ReturnType<BlockEdits>>, [], buffers, segment);
            expect(Buffer.from(patterns.buffer, patterns.byteOffset, patterns.byteLength).equals(whole.get(planned.spec.name) as Buffer), `${planned.spec.name}, segment ${segment}`).toBe(true);
          }
        } finally {
          await buffers.close();
        }
      }
    });
  }));

  it.each(['f32', 'reference'] as const)('an id listed twice is one row, its rule applied once, whole tensor or block by block (%s arithmetic)', (arith) => withTempDir(async (root) => {
    // Think 17 and protected 33 listed twice, apart; 52 (past the rows) twice.
    const repeated = { think: [3, 17, 16, 17, 52, 52], special: [33, 0, 16, 33, 45] };
    const method = craneMethod(arith, repeated);
    await withPair(root, crane(1), crane(9), async (i, t) => {
      const [onceNotes, wholeNotes, blockNotes] = [[] as string[], [] as string[], [] as string[]];
      const once = await produceAll(i, t, undefined, methodEdit(craneMethod(arith), null, null), onceNotes);
      const whole = await produceAll(i, t, undefined, methodEdit(method, null, null), wholeNotes);
      const inBlocks = await produceAll(i, t, methodBlockEdits(method), methodEdit(method, null, null), blockNotes);
      for (const [name, bytes] of once) {
        expect(whole.get(name)?.equals(bytes), `${name}, whole tensor`).toBe(true);
        expect(inBlocks.get(name)?.equals(bytes), `${name}, block by block`).toBe(true);
      }
      expect(wholeNotes).toEqual(onceNotes);
      expect(blockNotes).toEqual(onceNotes);
    });
  }));
});
