/**
 * The tensors a heatmap block (a column at one layer) covers, for the views that read them
 * (inspectLayer, getBlockPasses). A block is a coarse group ("attention"), one projection ("q",
 * "expert_gate") or one routed expert ("expert.17"). On a checkpoint that stores its experts
 * fused (`mlp.experts.gate_up_proj` [E, 2I, H]), an expert's block is a slice of the fused
 * tensors, so each tensor comes with the parts of it the block covers — the same parts the merge
 * edits (crane/expert-parts.ts).
 */
import { gateBlock } from '../crane/gate-accumulator.ts';
import { expertParts, isFusedExpertTensor, type ExpertPart } from '../crane/expert-parts.ts';
import { classifyTensor, type TensorClass } from '../crane/tensor-classification.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { ProtocolError } from '../protocol/errors.ts';
import type { Params } from '../protocol/methods.ts';
import { fineColumnName } from './block-columns.ts';

/** A large MoE layer's block can hold hundreds of expert tensors: the views show the first ones. */
export const MAX_TENSORS = 16;

export type Block = Params<'inspectLayer'>['block'];

/**
 * The block's tensors both sides hold (the first MAX_TENSORS parts), each with the parts of it the
 * block covers: one whole part, or the covered expert parts of a fused tensor, which a view reads
 * and edits once for all of them. 'not-found' when there are none.
 */
export function blockTensors(instruct: Checkpoint, thinking: Checkpoint, block: Block): Map<string, ExpertPart[]> {
  const found = [...instruct.tensors.values()]
    .filter(({ name }) => thinking.tensors.has(name))
    .flatMap(({ name, shape }) => blockParts(classifyTensor(name), shape, block).map((part) => ({ name, part })))
    .slice(0, MAX_TENSORS);
  if (found.length === 0) throw new ProtocolError('not-found', `no tensors in block ${block.group} of layer ${block.layer}`);
  const grouped = new Map<string, ExpertPart[]>();
  for (const { name, part } of found) grouped.set(name, [...(grouped.get(name) ?? []), part]);
  return grouped;
}

/** The whole tensor when the block covers it, else the parts of a fused expert tensor it covers (`expert.3` → expert 3's gate, up or down). */
function blockParts(tensor: TensorClass, shape: readonly number[], block: Block): ExpertPart[] {
  if (inBlock(tensor, block)) return [{ tensor, shape, offset: 0, length: shape.reduce((a, b) => a * b, 1) }];
  if (tensor.layer !== block.layer || !isFusedExpertTensor(tensor)) return [];
  return expertParts(tensor, shape).filter((part) => inBlock(part.tensor, block));
}

/** A column name matches a coarse group, one projection (with or without its group prefix) or one routed expert (`expert.17`). */
export function inBlock(tensor: TensorClass, block: Block): boolean {
  if (tensor.layer !== block.layer || tensor.group === 'embed' || tensor.group === 'lm_head' || tensor.group === 'final_norm') return false;
  if (tensor.group === block.group) return true;
  const fine = fineColumnName(tensor.group, gateBlock(tensor));
  return fine === block.group || `${tensor.group}_${fine}` === block.group;
}
