/**
 * One tensor whose edit goes a block of values at a time (θ_M over a range from θ_I and θ_T over
 * that range alone, knowing where it lies: method-edit.ts methodBlockEdits — task arithmetic,
 * CRANE's embedding and lm_head), edited block by block from the stored half floats.
 *
 *   editsInBlocks(planned) → whether the tensor can go this way (both sides F16/BF16, one shape, F16/BF16 out)
 *   produceInBlocks(planned, instruct, thinking, edit, notes, buffers) → the output patterns
 *
 * Both sides' stored bytes are read into the first half of the export's reusable arrays (their
 * other halves are never touched), a segment ahead of the edit (SEGMENT values a side, so reading
 * overlaps editing on a second core); each block of BLOCK values is widened into two cache-sized
 * float32 arrays, edited there (handed over: the edit overwrites them), checked and narrowed into
 * the output patterns, which overwrite Instruct's stored patterns of the same block (already
 * widened). The edit is told each block's first flat index (CRANE's row rules find their rows by it). Why: the whole-tensor path widens both sides into tensor-sized float32 arrays and
 * runs every pass over them, and on a Qwen3-shaped pair (91% of the bytes in the embedding and
 * lm_head) the first touch of those pages and the trips through memory were most of the
 * export's CPU. Memory: the two stored tensors, half of what the whole-tensor path holds.
 *
 * Same values as the whole-tensor path, and the same refusals (a NaN or ±Inf in an input or in
 * the result, naming the shard, the tensor and the flat index), but block by block: a pair that is
 * bad in several places is refused at the first bad block, not at Instruct's first bad value.
 */
import { join } from 'node:path';
import type { BlockEdit } from '../crane/crane-edit.ts';
import type { Checkpoint, CheckpointTensor } from '../io/checkpoint.ts';
import { assertFiniteValues, narrowFiniteInto } from '../io/finite-values.ts';
import { widenInto } from '../io/half-float.ts';
import type { ExportBuffers } from './edited-tensor.ts';
import type { PlannedTensor } from './export-plan.ts';

/** Values per block: 64 KiB of float32 a side, in cache from widening to narrowing. */
const BLOCK = 16_384;
/** Values per read (32 MiB of BF16 a side): the next segment is read while this one is edited. */
const SEGMENT = 1024 * BLOCK;

type Half = 'F16' | 'BF16';
const isHalf = (dtype: string): dtype is Half => dtype === 'F16' || dtype === 'BF16';

export function editsInBlocks(planned: PlannedTensor): boolean {
  const { instruct, thinking, spec } = planned;
  return instruct !== undefined && thinking !== undefined && isHalf(instruct.dtype) && isHalf(thinking.dtype) && isHalf(spec.dtype)
    && instruct.shape.length === thinking.shape.length && instruct.shape.every((d, i) => d === thinking.shape[i]);
}

/**
 * Both sides' stored patterns [from, from + segment) read into their places, or undefined past
 * the tensor's end. A read that fails before it is awaited (the edit stopped first) is dropped.
 */
function readSegment(
  buffers: ExportBuffers, name: string, [patternsI, patternsT]: readonly [Uint16Array, Uint16Array], from: number, segment: number,
): { instruct: Promise<Uint8Array>; thinking: Promise<Uint8Array> } | undefined {
  if (from >= patternsI.length && from > 0) return undefined;
  const bytes = (patterns: Uint16Array) => {
    const to = Math.min(patterns.length, from + segment);
    return new Uint8Array(patterns.buffer, patterns.byteOffset + 2 * from, 2 * (to - from));
  };
  const instruct = buffers.readAhead.instruct.readStored(name, bytes(patternsI), 2 * from);
  const thinking = buffers.readAhead.thinking.readStored(name, bytes(patternsT), 2 * from);
  instruct.catch(() => undefined);
  thinking.catch(() => undefined);
  return { instruct, thinking };
}

/** Only for a tensor editsInBlocks accepts, with its block edit. `segment`: values a side per read (tests make it small). */
export async function produceInBlocks(
  planned: PlannedTensor,
  instruct: Checkpoint,
  thinking: Checkpoint,
  edit: BlockEdit,
  notes: string[],
  buffers: ExportBuffers,
  segment = SEGMENT,
): Promise<Uint16Array> {
  const { name, dtype } = planned.spec;
  const [infoI, infoT] = [planned.instruct as CheckpointTensor, planned.thinking as CheckpointTensor];
  const count = infoI.bytes / 2;
  const [patternsI, patternsT] = [new Uint16Array(buffers.instruct.buffer, buffers.instruct.byteOffset, count), new Uint16Array(buffers.thinking.buffer, buffers.thinking.byteOffset, count)];
  const [fileI, fileT] = [join(instruct.dir, infoI.shard), join(thinking.dir, infoT.shard)];
  const [blockI, blockT] = [new Float32Array(Math.min(BLOCK, count)), new Float32Array(Math.min(BLOCK, count))];
  let note: string | undefined;
  let reading = readSegment(buffers, name, [patternsI, patternsT], 0, segment);
  for (let from = 0; reading !== undefined; from += segment) {
    // Awaited in order, so a failure on both sides names Instruct.
    await reading.instruct;
    await reading.thinking;
    // The next segment is read while this one is edited (its bytes lie past every block edited here).
    reading = readSegment(buffers, name, [patternsI, patternsT], from + segment, segment);
    const end = Math.min(count, from + segment);
    for (let at = from; at < end; at += BLOCK) {
      const to = Math.min(end, at + BLOCK);
      const [valuesI, valuesT] = [blockI.subarray(0, to - at), blockT.subarray(0, to - at)];
      if (!widenInto(infoI.dtype as Half, patternsI.subarray(at, to), valuesI)) assertFiniteValues(valuesI, fileI, name, 'contains', 'nothing was written', at);
      if (!widenInto(infoT.dtype as Half, patternsT.subarray(at, to), valuesT)) assertFiniteValues(valuesT, fileT, name, 'contains', 'nothing was written', at);
      const result = edit(valuesI, valuesT, at);
      note ??= result.note;
      // Into Instruct's patterns of this block, which valuesI already holds widened.
      narrowFiniteInto(dtype as Half, result.values, patternsI.subarray(at, to), at, fileI, name, 'was edited into', 'nothing was written');
    }
  }
  if (note !== undefined) notes.push(`${name}: ${note}`);
  return patternsI;
}
