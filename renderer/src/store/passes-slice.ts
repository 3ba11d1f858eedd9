/**
 * The per-pass views of a looped model's analysis (getPassMetrics) and which one the gate heatmap
 * shows: the combined gradient (the default: what the gate uses), one pass, or the passes'
 * disagreement. `metrics.result` is null for a model without a loop: no pass switch is offered.
 */
import type { Result } from '../protocol.ts';
import { idle, type Loadable, type SliceCreator } from './slice.ts';

export type PassMetrics = NonNullable<Result<'getPassMetrics'>>;
export type PassView = 'combined' | 'disagreement' | `pass${number}`;

export interface PassesSlice {
  passes: { metrics: Loadable<PassMetrics | null>; view: PassView };
  setPassMetrics(metrics: Loadable<PassMetrics | null>): void;
  setPassView(view: PassView): void;
}

export const createPassesSlice: SliceCreator<PassesSlice> = (set) => ({
  passes: { metrics: idle(), view: 'combined' },
  setPassMetrics: (metrics) => set((s) => ({ passes: { ...s.passes, metrics } })),
  setPassView: (view) => set((s) => ({ passes: { ...s.passes, view } })),
});
