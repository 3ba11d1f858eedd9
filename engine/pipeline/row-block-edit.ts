/**
 * A CRANE edit as a WeightSource whose vocab-sized tensors are built a block of rows at a time:
 * what the curvature stage's anchors measure (curvature-anchors.ts).
 *
 *   rowBlockEditedSource(instruct, thinking, settings, edit, blockValues?) → WeightSource
 *
 * editedWeightSource (edited-source.ts) reads both sides of a tensor whole and edits them: for
 * a 151,936-row embedding or lm_head that is θ_I and θ_T, 622 MB each at Qwen3-0.6B shapes, for
 * a result of the same size, beside whatever else the thread holds (an anchor on a worker runs
 * beside another worker's pass). The embedding and lm_head rules treat each row on its own
 * (special-tensors.ts: think rows, protected rows, the lm_head blend), so here each block of
 * rows is read from both sides (Checkpoint.readRowsFloat32, the same widening), edited with the
 * rule and the block's own think and protected rows, and written into the one result array: the
 * same float32 values, with no whole θ_I or θ_T beside it. Every other tensor, and a vocab
 * tensor the Thinking side lacks or has in another shape, goes through editedWeightSource.
 */
import { editEmbedding, editLmHead } from '../crane/special-tensors.ts';
import { classifyTensor } from '../crane/tensor-classification.ts';
import type { PairedEdit } from '../crane/tensor-pair.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import type { WeightSource } from '../model/weights.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { editedWeightSource } from './edited-source.ts';
import { ROW_BLOCK_VALUES } from './tensor-deltas.ts';

/** `edit`: craneEdit(settings, …), which the other tensors go through; `blockValues`: values per block (tests make it small). */
export function rowBlockEditedSource(instruct: Checkpoint, thinking: Checkpoint, settings: ResolvedCraneSettings, edit: PairedEdit, blockValues = ROW_BLOCK_VALUES): WeightSource {
  const edited = editedWeightSource(instruct, thinking, edit);
  return {
    dir: instruct.dir,
    config: instruct.config,
    tensors: instruct.tensors,
    tensor: (name) => instruct.tensor(name),
    readFloat32: (name, into) => (rowLocal(instruct, thinking, name) ? editedByBlocks(instruct, thinking, settings, name, blockValues) : edited.readFloat32(name, into)),
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
  const embedding = classifyTensor(name).rule === 'embedding';
  const out = new Float32Array(rowCount * width);
  const step = Math.max(1, Math.floor(blockValues / Math.max(1, width)));
  for (let first = 0; first < rowCount; first += step) {
    const count = Math.min(step, rowCount - first);
    const ids = Int32Array.from({ length: count }, (_, k) => first + k);
    const [thetaI, thetaT] = [await instruct.readRowsFloat32(name, ids), await thinking.readRowsFloat32(name, ids)];
    // the block's rows of the token lists, as indices into the block (an id past the tensor's rows is in no block: skipped, as the whole edit skips it)
    const local = (tokens: readonly number[]) => tokens.filter((id) => id >= first && id < first + count).map((id) => id - first);
    const tokens = { think: local(settings.tokens.think), special: local(settings.tokens.special) };
    const shape = [count, width];
    const { values } = embedding
      ? editEmbedding(thetaI, thetaT, shape, tokens, settings.special, settings.arith, true)
      : editLmHead(thetaI, thetaT, shape, tokens, settings.special, settings.arith, true);
    out.set(values, first * width);
  }
  return out;
}
