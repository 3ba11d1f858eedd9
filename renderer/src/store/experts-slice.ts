/**
 * The layer × expert views of an MoE analysis (getExpertMetrics), which of them the heatmap
 * shows, and whether the heatmap shows blocks or experts. `metrics.result` is null for a dense
 * model: the experts view is then not offered.
 */
import type { Result } from '../protocol.ts';
import { idle, type Loadable, type SliceCreator } from './slice.ts';

export type ExpertMetrics = NonNullable<Result<'getExpertMetrics'>>;

export const EXPERT_METRICS = [
  { id: 'gate', label: 'S per expert', description: 'S_CTG of the expert (its gate, up and down pooled), relative to the layer’s typical expert; used at fine granularity', scale: 'sequential' },
  { id: 'sumReasoning', label: 'Σs_R', description: 'Σ −g_R·δ over the expert: first-order reasoning gain (positive helps)', scale: 'diverging' },
  { id: 'sumAgent', label: 'Σs_A', description: 'Σ −g_A·δ over the expert: first-order tool-use gain (positive helps)', scale: 'diverging' },
  { id: 'reasoningVsAgent', label: 'D_R − D_A routing', description: 'Share of D_R’s routed tokens minus share of D_A’s: positive carries reasoning, negative tool use', scale: 'diverging' },
  { id: 'shareReasoning', label: 'D_R routed', description: 'Share of the reasoning set’s routed tokens (each token goes to k experts) that go to the expert', scale: 'sequential' },
  { id: 'shareAgent', label: 'D_A routed', description: 'Share of the tool-use set’s routed tokens that go to the expert', scale: 'sequential' },
  { id: 'shareFormat', label: 'D_F routed', description: 'Share of the format positions’ routed tokens that go to the expert', scale: 'sequential' },
  { id: 'probabilityReasoning', label: 'p̄ D_R', description: 'Mean router probability of the expert over the reasoning set’s tokens', scale: 'sequential' },
  { id: 'probabilityAgent', label: 'p̄ D_A', description: 'Mean router probability of the expert over the tool-use set’s tokens', scale: 'sequential' },
  { id: 'probabilityFormat', label: 'p̄ D_F', description: 'Mean router probability of the expert over the format positions', scale: 'sequential' },
] as const;

export type ExpertMetric = (typeof EXPERT_METRICS)[number]['id'];
export type HeatmapView = 'blocks' | 'experts';

export interface ExpertsSlice {
  experts: { metrics: Loadable<ExpertMetrics | null>; metric: ExpertMetric; view: HeatmapView };
  setExpertMetrics(metrics: Loadable<ExpertMetrics | null>): void;
  setExpertMetric(metric: ExpertMetric): void;
  setHeatmapView(view: HeatmapView): void;
}

export const createExpertsSlice: SliceCreator<ExpertsSlice> = (set) => ({
  experts: { metrics: idle(), metric: 'reasoningVsAgent', view: 'blocks' },
  setExpertMetrics: (metrics) => set((s) => ({ experts: { ...s.experts, metrics } })),
  setExpertMetric: (metric) => set((s) => ({ experts: { ...s.experts, metric } })),
  setHeatmapView: (view) => set((s) => ({ experts: { ...s.experts, view } })),
});
