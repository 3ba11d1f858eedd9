/**
 * phase2_stats.json, the reference pipeline's gate file (src/crane_s_reason_auto.py writes it,
 * src/crane_merge.py's AlphaSource reads it), both ways.
 *
 *   statsFromGate(table, sigma) → ReferenceStats     what `crane analyze --export-reference` writes
 *   gateFromStats(stats, file) → GateTable           what `crane import-reference` reads (S as stated)
 *   readReferenceStats(file) → ReferenceStats        validated; a wrong shape names the file
 *
 *   per_layer_S_reason      { "3": { "attention": 0.41, "ffn": 1.0, … } }   S per (layer, component)
 *   per_component_S_reason  { "attention": 0.52, … }                         the fallback without a layer entry
 *   metadata                { baseline_component, family, … }               other keys are kept, not read
 *
 * S values are JSON numbers, written by JSON.stringify (the shortest text that reads back as the
 * same float64, as Python's json does), so S survives both directions exactly. The reference's
 * merge looks S up by layer, then by component, then uses 1 — the studio's layer → global →
 * unscored order — so the same table edits the same.
 *
 * `crane_studio.sigma` (written by the studio, ignored by the reference): the projectors' σ as
 * float64. The reference stores σ in float32 and casts it to float32 before its mask; the
 * studio keeps float64 σ, and its mask w = sigmoid(k(σ/σ₁ − τ)) moves ~1e-6 when σ is rounded,
 * which would change the edited weights. Carrying the exact σ here lets a studio analysis come
 * back bit for bit; the import uses them only when they round to the .pt file's float32 σ.
 */
import { z } from 'zod';
import { blockKey } from '../crane/gate-accumulator.ts';
import type { GateTable } from '../crane/gate-scales.ts';
import type { LayerGroup } from '../crane/tensor-classification.ts';
import { statedGateTable, type StatedScale } from '../analysis/stated-gate-table.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readJsonFile } from '../io/json-file.ts';
import { baselineOf, familyOf, referenceComponent, studioBlock } from './reference-components.ts';

export const REFERENCE_STATS_FILE = 'phase2_stats.json';

const scales = z.record(z.string(), z.number());

const statsSchema = z.looseObject({
  per_layer_S_reason: z.record(z.string().regex(/^(0|[1-9]\d*)$/, 'a layer index'), scales).optional(),
  per_component_S_reason: scales.optional(),
  metadata: z.looseObject({ baseline_component: z.string().optional(), family: z.string().optional() }),
  crane_studio: z.strictObject({ sigma: z.record(z.string(), z.array(z.number())) }).optional(),
});

export type ReferenceStats = z.infer<typeof statsSchema>;

export async function readReferenceStats(file: string): Promise<ReferenceStats> {
  const stats = await readJsonFile(file, statsSchema, 'a reference phase2_stats.json (per_layer_S_reason, per_component_S_reason, metadata)');
  if (stats === undefined) throw new CheckpointError('not-found', file, 'no such stats file');
  return stats;
}

export function statsFromGate(table: GateTable, sigma: ReadonlyMap<string, Float64Array>): ReferenceStats {
  const perLayer: Record<string, Record<string, number>> = {};
  const perComponent: Record<string, number> = {};
  const groups = new Set<LayerGroup>();
  for (const { id, scale } of table.scores.values()) {
    groups.add(id.group);
    const component = referenceComponent(id);
    if (id.layer === null) perComponent[component] = scale;
    else (perLayer[String(id.layer)] ??= {})[component] = scale;
  }
  const sortedLayers = Object.fromEntries(Object.entries(perLayer).sort(([a], [b]) => Number(a) - Number(b)));
  return {
    per_layer_S_reason: sortedLayers,
    per_component_S_reason: perComponent,
    metadata: { baseline_component: table.reference, family: familyOf(table.reference, groups) },
    crane_studio: { sigma: Object.fromEntries([...sigma].map(([key, values]) => [key, [...values]])) },
  };
}

export function gateFromStats(stats: ReferenceStats, file: string): GateTable {
  const blocks: StatedScale[] = [];
  for (const [layer, components] of Object.entries(stats.per_layer_S_reason ?? {})) {
    for (const [name, scale] of Object.entries(components)) blocks.push({ id: { ...studioBlock(name, file), layer: Number(layer) }, scale });
  }
  for (const [name, scale] of Object.entries(stats.per_component_S_reason ?? {})) blocks.push({ id: { ...studioBlock(name, file), layer: null }, scale });
  if (blocks.length === 0) throw new CheckpointError('metadata', file, 'has no S values (per_layer_S_reason and per_component_S_reason are empty)');
  const seen = new Set<string>();
  for (const { id } of blocks) {
    const key = blockKey(id);
    if (seen.has(key)) throw new CheckpointError('metadata', file, `gives S twice for ${key}`);
    seen.add(key);
  }
  return statedGateTable(baselineOf(stats.metadata, file), blocks);
}
