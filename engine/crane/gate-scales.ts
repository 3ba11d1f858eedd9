/**
 * Stage 2 of CRANE, second half: turning block sums into the gate S_CTG.
 *
 *   computeGateTable(blocks, reference) → GateTable    (every coarse and fine block, per layer and global)
 *   resolveScale(tensor, table, options) → ScaleChoice (the S one tensor is edited with, and why)
 *   overrideKeys(tensor) → block keys an override of the tensor may sit at, best first
 *
 *   S_raw(c, l) = Σp / sqrt(Σθ_I²)
 *   S_CTG(c, l) = S_raw(c, l) / S_raw(ref, l)        ref = ffn (dense) or expert (MoE)
 *   S_CTG(ref, l) = 1 exactly; a denominator ≤ 0 becomes 1e-12; no clipping, no smoothing.
 *   Global S(c) = [Σ_l Σp / sqrt(Σ_l Σθ_I²)] / (the same for ref): the fallback for tensors
 *   without a layer index (the final norm uses the global `norm` value).
 *
 * Decisions where the spec is silent:
 * - sqrt(Σθ_I²) = 0 (an all-zero block) is floored at 1e-12 like the other denominator.
 * - Fine blocks (one per projection) are normalised by the layer's COARSE reference block, so
 *   coarse and fine values share one scale; the fine reference projections are not forced to 1.
 * - A routed expert's fine block (`expert.17@3`, S per expert) is normalised by the layer's
 *   typical expert, S_raw(expert, l) / sqrt(n_l) with n_l the experts scored in the layer: Σp
 *   grows with a block's size and ‖θ_I‖ with its square root, so one expert of n alike ones has
 *   S_raw(expert, l)/sqrt(n); this way experts that are all alike get S = 1 each, the coarse
 *   value, instead of 1/sqrt(128) ≈ 0.09 on a 128-expert model. An expert no scored token
 *   helps (Σp = 0) gets S = 0 as any block does.
 * - A layer that has no reference block at all (e.g. a dense layer inside an MoE stack) is
 *   normalised by the global reference S_raw instead of by 1e-12, which would multiply its
 *   deltas by ~1e12. A reference block that exists but has Σp = 0 still gets the 1e-12 rule.
 * - Lookup order is layer before global and, in fine mode, projection before group; a tensor
 *   whose own block was never scored falls back along that order, then to S = 1 (`unscored`).
 * - Overrides are looked up in the same order (always including fine keys) and win even when
 *   the gate is switched off: they are the researcher's explicit choice.
 */
import { blockScale } from '../protocol/block-scale.ts';
import type { Granularity } from '../protocol/settings-schemas.ts';
import { addSums, blockKey, EMPTY_SUMS, gateBlock, type BlockId, type GateSums } from './gate-accumulator.ts';
import type { LayerGroup, TensorClass } from './tensor-classification.ts';

export const DENOMINATOR_FLOOR = 1e-12;

export interface BlockScore {
  readonly id: BlockId;
  readonly sums: GateSums;
  readonly sRaw: number;
  /** S_CTG of the block. */
  readonly scale: number;
  readonly conflictShare: number;
  readonly deltaNorm: number;
  readonly thetaNorm: number;
}

export interface GateTable {
  readonly reference: LayerGroup;
  /** Keyed by blockKey: per layer (`expert@3`, `attention.q@3`) and global (`expert@*`). */
  readonly scores: ReadonlyMap<string, BlockScore>;
}

export interface ScaleOptions {
  readonly granularity: Granularity;
  /** S values set by hand, keyed by blockKey. */
  readonly overrideScales: Readonly<Record<string, number>>;
}

export interface ScaleChoice {
  readonly value: number;
  readonly source: 'override' | 'layer' | 'global' | 'unscored' | 'disabled';
  /** The block the value came from; null when unscored or disabled. */
  readonly key: string | null;
}

export function rawScore(sums: GateSums): number {
  return sums.positive / floorDenominator(Math.sqrt(sums.thetaSquared));
}

export function computeGateTable(
  blocks: readonly { readonly id: BlockId; readonly sums: GateSums }[],
  reference: LayerGroup,
): GateTable {
  const all = new Map<string, { id: BlockId; sums: GateSums }>();
  for (const { id, sums } of blocks) {
    if (id.layer === null) throw new RangeError(`block ${blockKey(id)} has no layer; globals are derived here`);
    all.set(blockKey(id), { id, sums });
    const global = { ...id, layer: null };
    const key = blockKey(global);
    all.set(key, { id: global, sums: addSums(all.get(key)?.sums ?? EMPTY_SUMS, sums) });
  }
  const referenceRaw = (layer: number | null): number => {
    const own = all.get(blockKey({ group: reference, block: null, layer }));
    const fallback = all.get(blockKey({ group: reference, block: null, layer: null }));
    const sums = own ?? fallback;
    return sums === undefined ? 0 : rawScore(sums.sums);
  };
  const expertsPerLayer = new Map<number | null, number>();
  for (const { id } of all.values()) if (isExpertBlock(id)) expertsPerLayer.set(id.layer, (expertsPerLayer.get(id.layer) ?? 0) + 1);
  const denominator = (id: BlockId): number => {
    const experts = isExpertBlock(id) ? (expertsPerLayer.get(id.layer) as number) : 1;
    return floorDenominator(referenceRaw(id.layer) / Math.sqrt(experts));
  };
  const scores = new Map<string, BlockScore>();
  for (const [key, { id, sums }] of all) {
    const sRaw = rawScore(sums);
    const isReference = id.group === reference && id.block === null;
    scores.set(key, {
      id,
      sums,
      sRaw,
      scale: isReference ? 1 : sRaw / denominator(id),
      conflictShare: sums.totalMass > 0 ? sums.conflictMass / sums.totalMass : 0,
      deltaNorm: Math.sqrt(sums.deltaSquared),
      thetaNorm: Math.sqrt(sums.thetaSquared),
    });
  }
  return { reference, scores };
}

/** A routed expert's own fine block (`expert.17@3`), as gateBlock names it. */
export function isExpertBlock(id: BlockId): boolean {
  return id.group === 'expert' && id.block !== null && /^\d+$/.test(id.block);
}

/** S for one tensor (protocol/block-scale.ts's rule). `table` null means the gate is switched off. */
export function resolveScale(tensor: TensorClass, table: GateTable | null, options: ScaleOptions): ScaleChoice {
  const override = overrideKeys(tensor).find((key) => Object.hasOwn(options.overrideScales, key));
  const computed = table === null ? undefined : lookupOrder(tensor, options.granularity).find(({ key }) => table.scores.has(key));
  const value = blockScale(
    table !== null,
    computed === undefined ? undefined : table?.scores.get(computed.key)?.scale,
    override === undefined ? undefined : options.overrideScales[override],
  );
  if (override !== undefined) return { value, source: 'override', key: override };
  if (table === null) return { value, source: 'disabled', key: null };
  return computed === undefined ? { value, source: 'unscored', key: null } : { value, source: computed.source, key: computed.key };
}

/** Overrides are looked up at fine granularity always: a projection's own override beats its group's. */
export function overrideKeys(tensor: TensorClass): string[] {
  return lookupOrder(tensor, 'fine').map(({ key }) => key);
}

/**
 * Blocks that may hold a tensor's S, best first: layer before global, and in fine mode the
 * projection's (a routed expert's: the expert's) block before its group's. The final norm has only the global `norm` value;
 * embeddings and lm_head have none (their rules do not use S).
 */
function lookupOrder(tensor: TensorClass, granularity: Granularity): { key: string; source: 'layer' | 'global' }[] {
  if (tensor.group === 'final_norm') return [{ key: blockKey({ group: 'norm', block: null, layer: null }), source: 'global' }];
  if (tensor.group === 'embed' || tensor.group === 'lm_head') return [];
  const { group } = tensor;
  const blocks = granularity === 'fine' ? [gateBlock(tensor), null] : [null];
  const layers = tensor.layer === null ? [null] : [tensor.layer, null];
  return layers.flatMap((layer) => blocks.map((block) => ({
    key: blockKey({ group, block, layer }),
    source: layer === null ? 'global' as const : 'layer' as const,
  })));
}

function floorDenominator(value: number): number {
  return value > 0 ? value : DENOMINATOR_FLOOR;
}
