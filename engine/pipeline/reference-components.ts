/**
 * The one translation between the studio's gate blocks and the component names of the CRANE
 * reference pipeline (github.com/rpi-nsl/CRANE, src/_common.py `classify_component`).
 *
 *   referenceComponent({ group, block }) → "attention" | "attention.q" | …
 *   studioBlock(name, file) → { group, block }        a phase2_stats.json key read back
 *   familyOf(reference) / baselineOf(metadata, file)   metadata.family ↔ the gate's reference block
 *
 * The studio's coarse groups ARE the reference's components (attention, ffn, expert,
 * shared_expert, router, linear_attn, norm, other), and a tensor lands in the same one on both
 * sides (reference-components.test.ts checks Qwen3 dense, MoE and Next names), so coarse keys
 * pass unchanged. Deliberate difference: the studio also scores one block per projection
 * (fine granularity). Those are written as `group.block` keys ("attention.q", "ffn.down"), which
 * crane_merge.py never looks up — it reads only coarse names — and which the studio reads back,
 * so a fine-grained tuning survives a round trip through the reference's files.
 */
import type { BlockId } from '../crane/gate-accumulator.ts';
import type { LayerGroup } from '../crane/tensor-classification.ts';
import { layerGroupSchema } from '../analysis/gate-table-file.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';

export type ComponentBlock = Pick<BlockId, 'group' | 'block'>;

/** The reference's architecture families; `baseline_component` is ffn for dense, expert otherwise. */
export type ReferenceFamily = 'dense' | 'moe' | 'next';

export function referenceComponent({ group, block }: ComponentBlock): string {
  return block === null ? group : `${group}.${block}`;
}

export function studioBlock(name: string, file: string): ComponentBlock {
  const dot = name.indexOf('.');
  const group = layerGroupSchema.safeParse(dot < 0 ? name : name.slice(0, dot));
  if (!group.success || dot === name.length - 1) {
    throw new CheckpointError('metadata', file, `component "${name}" is not one of ${layerGroupSchema.options.join(', ')} (optionally .projection)`);
  }
  return { group: group.data, block: dot < 0 ? null : name.slice(dot + 1) };
}

/** What the reference records for a table normalised by `reference`; linear attention means Qwen3-Next. */
export function familyOf(reference: LayerGroup, groups: ReadonlySet<LayerGroup>): ReferenceFamily {
  if (reference === 'ffn') return 'dense';
  return groups.has('linear_attn') ? 'next' : 'moe';
}

/** The gate's reference block from the stats' metadata: baseline_component, else the family's rule. */
export function baselineOf(metadata: { baseline_component?: string | undefined; family?: string | undefined }, file: string): LayerGroup {
  const named = metadata.baseline_component ?? (metadata.family === undefined ? undefined : metadata.family === 'dense' ? 'ffn' : 'expert');
  if (named === undefined) throw new CheckpointError('metadata', file, 'metadata names neither baseline_component nor family');
  const { group, block } = studioBlock(named, file);
  if (block !== null) throw new CheckpointError('metadata', file, `baseline_component "${named}" must be a coarse component`);
  return group;
}
