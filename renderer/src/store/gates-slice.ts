/** Gate metrics from the analysis and which metric the heatmap shows. */
import type { GateMetrics } from '../protocol.ts';
import { idle, type Loadable, type SliceCreator } from './slice.ts';

export const HEATMAP_METRICS = [
  { id: 'gate', label: 'S_CTG', description: 'Conservative Taylor gate relative to the layer’s reference block', scale: 'sequential' },
  { id: 'effectiveScale', label: 'α·S', description: 'Effective scale applied to T(δ): α × gate, with overrides and locks', scale: 'sequential' },
  { id: 'sumReasoning', label: 'Σs_R', description: 'Σ −g_R·δ over the block: first-order reasoning gain (positive helps)', scale: 'diverging' },
  { id: 'sumAgent', label: 'Σs_A', description: 'Σ −g_A·δ over the block: first-order tool-use gain (positive helps)', scale: 'diverging' },
  { id: 'conflictShare', label: 'Conflict', description: 'Share of coordinates where s_R and s_A disagree in sign', scale: 'sequential' },
  { id: 'retainedNorm', label: 'Retained ‖Π(U)‖/‖U‖', description: 'Share of the (thresholded) update’s norm that GSP keeps, over the block’s tensors (from the preview)', scale: 'sequential' },
  { id: 'relativeDelta', label: '‖δ‖/‖θ_I‖', description: 'Relative size of the Thinking − Instruct difference', scale: 'sequential' },
] as const;

export type HeatmapMetric = (typeof HEATMAP_METRICS)[number]['id'];

export interface GatesSlice {
  gates: { metrics: Loadable<GateMetrics>; metric: HeatmapMetric };
  setGateMetrics(metrics: Loadable<GateMetrics>): void;
  setHeatmapMetric(metric: HeatmapMetric): void;
}

export const createGatesSlice: SliceCreator<GatesSlice> = (set) => ({
  gates: { metrics: idle(), metric: 'gate' },
  setGateMetrics: (metrics) => set((s) => ({ gates: { ...s.gates, metrics } })),
  setHeatmapMetric: (metric) => set((s) => ({ gates: { ...s.gates, metric } })),
});
