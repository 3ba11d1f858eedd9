/**
 * The heatmap's columns: which gate blocks of an analysis become which protocol group names, and
 * the (layer × column) matrices the protocol carries.
 *
 *   const columns = blockColumns(gateTable, 'coarse' | 'fine');
 *   columns.names            e.g. ['attention', 'ffn', 'norm'] or ['q', 'k', 'v', 'o', …, 'gate', 'up', 'down', …]
 *   columns.cell(blockKey)   index l·cols + c of an engine block key (`attention.q@3`), or -1
 *   columns.blockOf(name)    the engine block a column stands for ({ group, block })
 *   columns.matrix(score => value)
 *
 * Coarse columns are the engine's group names. Fine columns name one projection: the bare block
 * name where the UI expects it (q, k, v, o, q_norm, gate, up, down of a dense FFN, input_norm, …),
 * prefixed where the same projection exists in several groups of one model (expert_gate,
 * shared_gate) — the protocol's block names are one token, and they must stay unambiguous. A
 * routed expert's own block is `expert.17` (the protocol's group with an expert index), and
 * expert columns run in expert order.
 */
import { blockKey } from '../crane/gate-accumulator.ts';
import { isExpertBlock, type BlockScore, type GateTable } from '../crane/gate-scales.ts';
import type { LayerGroup } from '../crane/tensor-classification.ts';
import type { Granularity } from '../protocol/settings-schemas.ts';

export interface ColumnBlock {
  readonly group: LayerGroup;
  /** null for a coarse column. */
  readonly block: string | null;
}

export interface Matrix {
  readonly rows: number;
  readonly cols: number;
  readonly values: Float32Array<ArrayBuffer>;
}

export interface BlockColumns {
  readonly granularity: Granularity;
  readonly layers: number;
  readonly names: readonly string[];
  cell(key: string): number;
  blockOf(name: string): ColumnBlock | undefined;
  matrix(value: (score: BlockScore) => number): Matrix;
}

const GROUP_ORDER: readonly LayerGroup[] = ['attention', 'linear_attn', 'ffn', 'expert', 'shared_expert', 'router', 'norm', 'other'];
const FINE_PREFIX: Partial<Record<LayerGroup, string>> = { expert: 'expert_', shared_expert: 'shared_', other: 'other_' };

export function fineColumnName(group: LayerGroup, block: string): string {
  if (group === 'expert' && /^\d+$/.test(block)) return `expert.${Number(block)}`;
  return `${FINE_PREFIX[group] ?? ''}${block}`.toLowerCase().replace(/[^a-z_]/g, '_');
}

/** Group order, then expert order among a layer group's expert blocks; others keep their order. */
function columnOrder(a: BlockScore, b: BlockScore): number {
  const byGroup = GROUP_ORDER.indexOf(a.id.group) - GROUP_ORDER.indexOf(b.id.group);
  return byGroup !== 0 || !isExpertBlock(a.id) || !isExpertBlock(b.id) ? byGroup : Number(a.id.block) - Number(b.id.block);
}

export function blockColumns(table: GateTable, granularity: Granularity): BlockColumns {
  const layered = [...table.scores.values()].filter((s) => s.id.layer !== null && (granularity === 'coarse') === (s.id.block === null));
  const layers = layered.reduce((max, s) => Math.max(max, (s.id.layer as number) + 1), 0);
  const ordered = [...layered].sort(columnOrder);
  const byName = new Map<string, ColumnBlock>();
  const nameOf = new Map<string, string>();
  for (const { id } of ordered) {
    const inner = `${id.group}.${id.block ?? ''}`;
    if (nameOf.has(inner)) continue;
    let name = id.block === null ? id.group : fineColumnName(id.group, id.block);
    if (byName.has(name)) name = `${id.group}_${name}`;
    byName.set(name, { group: id.group, block: id.block });
    nameOf.set(inner, name);
  }
  const names = [...byName.keys()];
  const column = new Map(names.map((n, i) => [n, i]));
  const cellOf = new Map<string, number>();
  for (const { id } of layered) {
    const c = column.get(nameOf.get(`${id.group}.${id.block ?? ''}`) as string) as number;
    cellOf.set(blockKey(id), (id.layer as number) * names.length + c);
  }
  return {
    granularity,
    layers,
    names,
    cell: (key) => cellOf.get(key) ?? -1,
    blockOf: (name) => byName.get(name),
    matrix: (value) => {
      const values = new Float32Array(layers * names.length);
      for (const score of layered) values[cellOf.get(blockKey(score.id)) as number] = value(score);
      return { rows: layers, cols: names.length, values };
    },
  };
}
