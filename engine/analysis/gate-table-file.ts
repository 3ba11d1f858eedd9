/**
 * The CTG gate table as an open JSON artifact (also what `crane analyze --export` writes).
 *
 *   gateTableJson(table) → GateTableJson          one row per (component, layer) block and per global block
 *   readGateTable(file) → GateTable               read, validated, then rebuilt with computeGateTable
 *   readGateTableFile(file) → { table, origin }   the same, saying whether S came from gradients or a reference run
 *
 * Each row carries Σp, Σs_R, Σs_A, ‖θ_I‖ and S (the spec's open-artifact fields), plus the raw
 * sums. Loading recomputes S from the per-layer sums instead of trusting the stored S: the table
 * then obeys the engine's rules by construction, and the stored S are for readers outside the
 * studio. JSON numbers round-trip float64 exactly and the rows keep the table's order, so the
 * rebuilt table equals the written one bit for bit.
 *
 * A table imported from a reference run (`origin: "reference-run"`, pipeline/reference-run.ts)
 * has S but no sums: its rows' S — per layer and global — are taken as stated
 * (stated-gate-table.ts). Tables computed here carry no `origin` field, so their bytes are
 * unchanged.
 */
import { z } from 'zod';
import { blockKey, type GateSums } from '../crane/gate-accumulator.ts';
import { computeGateTable, type GateTable } from '../crane/gate-scales.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readJsonFile } from '../io/json-file.ts';
import { statedGateTable } from './stated-gate-table.ts';

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

/** Where a table's S came from: measured here from gradients, or stated by a reference run. */
export type GateOrigin = 'gradients' | 'reference-run';

const gateTableSchema = z.strictObject({
  format: z.literal(GATE_TABLE_FORMAT),
  origin: z.literal('reference-run').optional(),
  reference: layerGroupSchema,
  blocks: z.array(rowSchema),
});

export type GateTableJson = z.infer<typeof gateTableSchema>;

export function gateTableJson(table: GateTable, origin: GateOrigin = 'gradients'): GateTableJson {
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
  return { format: GATE_TABLE_FORMAT, ...(origin === 'reference-run' ? { origin } : {}), reference: table.reference, blocks };
}

export async function readGateTable(file: string): Promise<GateTable> {
  return (await readGateTableFile(file)).table;
}

export async function readGateTableFile(file: string): Promise<{ table: GateTable; origin: GateOrigin }> {
  const table = await readJsonFile(file, gateTableSchema, 'a gate table');
  if (table === undefined) throw new CheckpointError('not-found', file, 'no gate table here');
  const idOf = (row: GateTableJson['blocks'][number]) => {
    const id = { group: row.group, block: row.block, layer: row.layer };
    if (blockKey(id) !== row.key) throw new CheckpointError('metadata', file, `row "${row.key}" does not match its group/block/layer (${blockKey(id)})`);
    return id;
  };
  if (table.origin === 'reference-run') {
    return { table: statedGateTable(table.reference, table.blocks.map((row) => ({ id: idOf(row), scale: row.S }))), origin: 'reference-run' };
  }
  const layerBlocks = table.blocks.filter((row) => row.layer !== null).map((row) => {
    const id = idOf(row);
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
  return { table: computeGateTable(layerBlocks, table.reference), origin: 'gradients' };
}
