/**
 * The CTG gate table as an open JSON artifact (also what `crane analyze --export` writes).
 *
 *   gateTableJson(table) → GateTableJson          one row per (component, layer) block and per global block
 *   readGateTable(file) → GateTable               read, validated, then rebuilt with computeGateTable
 *
 * Each row carries Σp, Σs_R, Σs_A, ‖θ_I‖ and S (the spec's open-artifact fields), plus the raw
 * sums. Loading recomputes S from the per-layer sums instead of trusting the stored S: the table
 * then obeys the engine's rules by construction, and the stored S are for readers outside the
 * studio. JSON numbers round-trip float64 exactly and the rows keep the table's order, so the
 * rebuilt table equals the written one bit for bit.
 */
import { z } from 'zod';
import { blockKey, type GateSums } from '../crane/gate-accumulator.ts';
import { computeGateTable, type GateTable } from '../crane/gate-scales.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readJsonFile } from '../io/json-file.ts';

const GATE_TABLE_FORMAT = 'crane-gate-table';

/** The coarse gate groups of tensor-classification's LayerGroup. */
export const layerGroupSchema = z.enum(['attention', 'ffn', 'expert', 'shared_expert', 'router', 'linear_attn', 'norm', 'other']);

const rowSchema = z.strictObject({
  key: z.string(),
  group: layerGroupSchema,
  /** Projection for fine blocks, null for the coarse group. */
  block: z.string().nullable(),
  /** null for the global value of the group. */
  layer: z.int().nonnegative().nullable(),
  S: z.number(),
  S_raw: z.number(),
  sum_p: z.number(),
  sum_s_R: z.number(),
  sum_s_A: z.number(),
  theta_norm: z.number(),
  delta_norm: z.number(),
  conflict_share: z.number(),
  count: z.int().nonnegative(),
  theta_squared: z.number(),
  delta_squared: z.number(),
  conflict_mass: z.number(),
  total_mass: z.number(),
});

const gateTableSchema = z.strictObject({
  format: z.literal(GATE_TABLE_FORMAT),
  reference: layerGroupSchema,
  blocks: z.array(rowSchema),
});

export type GateTableJson = z.infer<typeof gateTableSchema>;

export function gateTableJson(table: GateTable): GateTableJson {
  const blocks = [...table.scores.entries()].map(([key, score]) => ({
    key,
    group: score.id.group,
    block: score.id.block,
    layer: score.id.layer,
    S: score.scale,
    S_raw: score.sRaw,
    sum_p: score.sums.positive,
    sum_s_R: score.sums.reasoning,
    sum_s_A: score.sums.agent,
    theta_norm: score.thetaNorm,
    delta_norm: score.deltaNorm,
    conflict_share: score.conflictShare,
    count: score.sums.count,
    theta_squared: score.sums.thetaSquared,
    delta_squared: score.sums.deltaSquared,
    conflict_mass: score.sums.conflictMass,
    total_mass: score.sums.totalMass,
  }));
  return { format: GATE_TABLE_FORMAT, reference: table.reference, blocks };
}

export async function readGateTable(file: string): Promise<GateTable> {
  const table = await readJsonFile(file, gateTableSchema, 'a gate table');
  if (table === undefined) throw new CheckpointError('not-found', file, 'no gate table here');
  const layerBlocks = table.blocks.filter((row) => row.layer !== null).map((row) => {
    const id = { group: row.group, block: row.block, layer: row.layer };
    if (blockKey(id) !== row.key) throw new CheckpointError('metadata', file, `row "${row.key}" does not match its group/block/layer (${blockKey(id)})`);
    const sums: GateSums = {
      count: row.count,
      positive: row.sum_p,
      reasoning: row.sum_s_R,
      agent: row.sum_s_A,
      thetaSquared: row.theta_squared,
      deltaSquared: row.delta_squared,
      conflictMass: row.conflict_mass,
      totalMass: row.total_mass,
    };
    return { id, sums };
  });
  return computeGateTable(layerBlocks, table.reference);
}
