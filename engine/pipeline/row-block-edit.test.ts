/**
 * The anchors' row-block edit on a real tiny pair on disk (untied lm_head): the embedding and
 * lm_head built a few rows at a time (blocks that end mid-tensor, think and protected rows in
 * several of them) are editedWeightSource's whole-tensor edit bit for bit, in float32 and in the
 * reference's bf16 arithmetic, and at two α; so are chosen rows edited alone (an embedding
 * lookup's: repeated, think and protected ids); every other tensor is that source's own. With a
 * vocab tensor that is not row-local (Thinking without lm_head) the source reads no rows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { craneEdit } from '../crane/crane-edit.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { gatherRows } from '../model/head.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import type { ResolvedCraneSettings, TokenRows } from '../protocol/settings-schemas.ts';
import { editTokenRows } from './checkpoint-tokenizer.ts';
import { editedWeightSource } from './edited-source.ts';
import { rowBlockEditedSource } from './row-block-edit.ts';
import { writeTinyProject } from './testing/tiny-project.ts';

let root: string;
let instruct: Checkpoint;
let thinking: Checkpoint;
let tokens: TokenRows;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'crane-row-block-edit-'));
  const project = await writeTinyProject(root, { model: { tied: false }, noise: 0.01 });
  [instruct, thinking] = [await Checkpoint.open(project.instruct), await Checkpoint.open(project.thinking)];
  tokens = await editTokenRows(project.instruct, () => undefined);
});
afterAll(async () => {
  await instruct.close();
  await thinking.close();
  await rm(root, { recursive: true, force: true });
});

const bytes = (values: Float32Array) => new Uint8Array(values.buffer, values.byteOffset, values.byteLength);

describe('row-block edit', () => {
  it('builds the embedding and lm_head block by block, and chosen rows alone, to the whole edit\'s bits; the other tensors as the whole edit', async () => {
    const rowCount = instruct.tensor('lm_head.weight').shape[0] as number;
    // think and protected rows spread over blocks, one of them also past the rows (skipped either way)
    const spread: TokenRows = { think: [...tokens.think, 1, rowCount - 1], special: [...tokens.special, 0, 4, rowCount + 3] };
    expect(tokens.think.length).toBeGreaterThan(0);
    const cases: ResolvedCraneSettings[] = [
      { ...defaultResolvedSettings(tokens), alpha: 0.25 },
      { ...defaultResolvedSettings(spread), alpha: 1 },
      { ...defaultResolvedSettings(spread), arith: 'reference' },
    ];
    const width = instruct.tensor('model.embed_tokens.weight').shape[1] as number;
    for (const settings of cases) {
      const edit = craneEdit(settings, { gate: null, projector: () => undefined });
      const whole = editedWeightSource(instruct, thinking, edit);
      const blocks = rowBlockEditedSource(instruct, thinking, settings, edit, 3 * width);
      for (const name of ['model.embed_tokens.weight', 'lm_head.weight', 'model.layers.0.self_attn.q_proj.weight', 'model.norm.weight']) {
        const [expected, got] = [await whole.readFloat32(name), await blocks.readFloat32(name)];
        expect(bytes(got)).toEqual(bytes(expected));
      }
      // chosen rows (a lookup's: repeats, think and protected ids, out of order) edited alone, as the whole edit has them
      const ids = [...tokens.think, 2, 0, 2, rowCount - 1, 4, ...tokens.think];
      for (const name of ['model.embed_tokens.weight', 'lm_head.weight', 'model.layers.0.self_attn.q_proj.weight']) {
        const rowWidth = instruct.tensor(name).shape[1] as number;
        const expected = gatherRows(await whole.readFloat32(name), ids, rowWidth);
        expect(bytes(await (blocks.readRowsFloat32 as NonNullable<typeof blocks.readRowsFloat32>)(name, ids))).toEqual(bytes(expected));
      }
    }
  });

  it('reads no rows where a vocab tensor is not row-local (Thinking without lm_head): the readers then read whole, once', async () => {
    const settings = defaultResolvedSettings(tokens);
    const edit = craneEdit(settings, { gate: null, projector: () => undefined });
    expect(rowBlockEditedSource(instruct, thinking, settings, edit).readRowsFloat32).toBeDefined();
    const headless = new Map([...thinking.tensors].filter(([name]) => name !== 'lm_head.weight'));
    const thinkingWithoutHead = Object.create(thinking, { tensors: { value: headless } }) as Checkpoint;
    const blocks = rowBlockEditedSource(instruct, thinkingWithoutHead, settings, edit);
    expect(blocks.readRowsFloat32).toBeUndefined();
    const whole = editedWeightSource(instruct, thinkingWithoutHead, edit);
    for (const name of ['model.embed_tokens.weight', 'lm_head.weight']) expect(bytes(await blocks.readFloat32(name))).toEqual(bytes(await whole.readFloat32(name)));
  });
});
