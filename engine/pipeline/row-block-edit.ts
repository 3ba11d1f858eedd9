/**
 * A CRANE edit as a WeightSource whose vocab-sized tensors are built a block of rows at a time:
 * what the curvature stage's anchors measure (curvature-anchors.ts).
 *
 *   rowBlockEditedSource(instruct, thinking, settings, edit, blockValues?) → WeightSource   (readRowsFloat32: chosen rows edited alone)
 *
 * editedWeightSource (edited-source.ts) reads both sides of a tensor whole and edits them: for
 * a 151,936-row embedding or lm_head that is θ_I and θ_T, 622 MB each at Qwen3-0.6B shapes, for
 * a result of the same size, beside whatever else the thread holds (an anchor on a worker runs
 * beside another worker's pass). The embedding and lm_head rules treat each row on its own
 * (special-tensors.ts: think rows, protected rows, the lm_head blend), so here each block of
 * rows is read from both sides (Checkpoint.readRowsFloat32, the same widening), edited with the
 * rule and the block's own think and protected rows, and written into the one result array: the
 * same float32 values, with no whole θ_I or θ_T beside it. The embedding lookup asks for its
 * rows only (readRowsFloat32, model/embedding-rows.ts): those rows are edited alone, the same
 * way. Every other tensor, and a vocab tensor the Thinking side lacks or has in another shape,
 * goes through editedWeightSource; with such a vocab tensor the source reads no rows at all, so
 * the lookup and the head read whole once rather than edit the whole tensor per row read.
 */
import { editEmbedding, editLmHead } from '../crane/special-tensors.ts';
import { classifyTensor } from '../crane/tensor-classification.ts';
import type { PairedEdit } from '../crane/tensor-pair.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { gatherRows } from '../model/head.ts';
import { blockRowsFor, ROW_BLOCK_VALUES, rowBlocks, rowIds } from '../model/row-block-upload.ts';
import { EMBED_NAME, LM_HEAD_NAME, type WeightSource } from '../model/weights.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { editedWeightSource } from './edited-source.ts';

/** The tensors whose rows the runtime reads alone (the embedding lookup, an untied head). */
const VOCAB_NAMES = [EMBED_NAME, LM_HEAD_NAME];

/** `edit`: craneEdit(settings, …), which the other tensors go through; `blockValues`: values per block (tests make it small). */
export function rowBlockEditedSource(instruct: Checkpoint, thinking: Checkpoint, settings: ResolvedCraneSettings, edit: PairedEdit, blockValues = ROW_BLOCK_VALUES): WeightSource {
  const edited = editedWeightSource(instruct, thinking, edit);
  const readsRows = VOCAB_NAMES.filter((name) => instruct.tensors.has(name)).every((name) => rowLocal(instruct, thinking, name));
  return {
    dir: instruct.dir,
    config: instruct.config,
    tensors: instruct.tensors,
    tensor: (name) => instruct.tensor(name),
    readFloat32: (name, into) => (rowLocal(instruct, thinking, name) ? editedByBlocks(instruct, thinking, settings, name, blockValues) : edited.readFloat32(name, into)),
    // the embedding lookup's and an on-demand head's rows edited alone (model/embedding-rows.ts, model/head.ts): no
    // vocab-sized array at all. Only where every vocab tensor is row-local: a row read of another one would be its whole
    // edit (the head asks for ~150 blocks per chunk), so there the readers read whole instead.
    ...(!readsRows ? {} : {
      readRowsFloat32: async (name: string, rows: ArrayLike<number>) => {
        if (rowLocal(instruct, thinking, name)) return editedRows(instruct, thinking, settings, name, rows);
        const width = instruct.tensor(name).shape.slice(1).reduce((a, b) => a * b, 1);
        return gatherRows(await edited.readFloat32(name), Array.from(rows), width);
      },
    }),
  };
}

/** An embedding or lm_head on both sides with one 2-D shape: the rules editPair would apply row by row. */
function rowLocal(instruct: Checkpoint, thinking: Checkpoint, name: string): boolean {
  const { rule } = classifyTensor(name);
  if ((rule !== 'embedding' && rule !== 'lm_head') || !thinking.tensors.has(name)) return false;
  const [a, b] = [instruct.tensor(name).shape, thinking.tensor(name).shape];
  return a.length === 2 && b.length === 2 && a[0] === b[0] && a[1] === b[1];
}

async function editedByBlocks(instruct: Checkpoint, thinking: Checkpoint, settings: ResolvedCraneSettings, name: string, blockValues: number): Promise<Float32Array> {
  const [rowCount, width] = instruct.tensor(name).shape as [number, number];
  const out = new Float32Array(rowCount * width);
  for (const { first, count } of rowBlocks(rowCount, blockRowsFor(width, blockValues))) {
    out.set(await editedRows(instruct, thinking, settings, name, rowIds(first, count)), first * width);
  }
  return out;
}

/** Rows `rows` of the edited tensor ([rows.length · width]): both sides' rows read and edited by the rule with the token lists' positions among them. */
async function editedRows(instruct: Checkpoint, thinking: Checkpoint, settings: ResolvedCraneSettings, name: string, rows: ArrayLike<number>): Promise<Float32Array> {
  const [thetaI, thetaT] = [await instruct.readRowsFloat32(name, rows), await thinking.readRowsFloat32(name, rows)];
  const positions = new Map<number, number[]>();
  for (let i = 0; i < rows.length; i++) positions.set(rows[i] as number, [...(positions.get(rows[i] as number) ?? []), i]);
  // each listed id as its positions among the rows, as often as it is listed (an id not among them, or past the tensor's rows, is skipped, as the whole edit skips it)
  const local = (tokens: readonly number[]) => tokens.flatMap((id) => positions.get(id) ?? []);
  const tokens = { think: local(settings.tokens.think), special: local(settings.tokens.special) };
  const shape = [rows.length, thetaI.length / Math.max(1, rows.length)];
  const { values } = classifyTensor(name).rule === 'embedding'
    ? editEmbedding(thetaI, thetaT, shape, tokens, settings.special, settings.arith, true)
    : editLmHead(thetaI, thetaT, shape, tokens, settings.special, settings.arith, true);
  return values;
}
