/**
 * The gate heatmap's matrix for a pass view of a looped model: one pass's Σs_R, Σs_A or conflict
 * share, or the passes' disagreement on Σs_R or Σs_A — the part of the block's first-order
 * gain that pulls against the other passes: min(Σ of the positive passes, |Σ of the negative
 * ones|), 0 where every pass pulls the same way. S and the other metrics have no per-pass value
 * (the gate scores the summed gradient), so they stay combined.
 *
 *   passViews(passes, metric)            the views the switch offers for a metric
 *   passMatrix(gates, passes, view, metric) → Matrix | null   (null: show the combined metric)
 */
import type { GateMetrics, Matrix } from '../../protocol.ts';
import type { HeatmapMetric } from '../../store/gates-slice.ts';
import type { PassMetrics, PassView } from '../../store/passes-slice.ts';

type PassBlock = PassMetrics['blocks'][number];
const PER_PASS = { sumReasoning: 'sumReasoning', sumAgent: 'sumAgent', conflictShare: 'conflictShare' } as const;
type PerPassMetric = keyof typeof PER_PASS;

const perPass = (metric: HeatmapMetric): metric is PerPassMetric => metric in PER_PASS;

export function passViews(passes: PassMetrics, metric: HeatmapMetric): { value: PassView; label: string; title: string }[] {
  if (!perPass(metric)) return [];
  const views: { value: PassView; label: string; title: string }[] = [{ value: 'combined', label: 'Combined', title: 'The gradient summed over the passes: what the gate scores' }];
  for (let p = 0; p < passes.passes; p++) views.push({ value: `pass${p}`, label: `Pass ${p + 1}`, title: `The part of the gradient from pass ${p + 1} through the layers` });
  if (metric !== 'conflictShare') views.push({ value: 'disagreement', label: 'Disagreement', title: 'Gain pulling against the other passes: min(positive passes, |negative passes|); 0 where all passes agree' });
  return views;
}

export function passMatrix(gates: GateMetrics, passes: PassMetrics, view: PassView, metric: HeatmapMetric): Matrix | null {
  if (view === 'combined' || !passViews(passes, metric).some((v) => v.value === view) || !perPass(metric)) return null;
  const blocks = blocksAt(gates, passes.blocks);
  const cols = gates.groups.length;
  const values = new Float32Array(gates.layers * cols).fill(NaN);
  const column = new Map(gates.groups.map((g, i) => [g, i]));
  const cellOf = (b: PassBlock) => b.layer * cols + (column.get(b.column) as number);
  if (view === 'disagreement') {
    const positive = new Float64Array(values.length);
    const negative = new Float64Array(values.length);
    for (const b of blocks) {
      const v = b[PER_PASS[metric]];
      const cell = cellOf(b);
      if (v > 0) positive[cell] = (positive[cell] as number) + v;
      else negative[cell] = (negative[cell] as number) - v;
    }
    for (const b of blocks) values[cellOf(b)] = Math.min(positive[cellOf(b)] as number, negative[cellOf(b)] as number);
  } else {
    const pass = Number(view.slice('pass'.length));
    for (const b of blocks) if (b.pass === pass) values[cellOf(b)] = b[PER_PASS[metric]];
  }
  return { rows: gates.layers, cols, values };
}

/** The blocks at the heatmap's granularity (coarse when the coarse blocks' columns are its groups, else fine) inside its grid. */
function blocksAt(gates: GateMetrics, blocks: readonly PassBlock[]): PassBlock[] {
  const coarse = blocks.filter((b) => b.block === null);
  const names = new Set(coarse.map((b) => b.column));
  const isCoarse = names.size === gates.groups.length && gates.groups.every((g) => names.has(g));
  const chosen = isCoarse ? coarse : blocks.filter((b) => b.block !== null);
  return chosen.filter((b) => gates.groups.includes(b.column) && b.layer < gates.layers);
}
