/**
 * Which matrix the heatmap shows for a metric, and the colour domain it is drawn in. Pure
 * functions of the store state, shared by the canvas, the legend and the tooltip.
 */
import { effectiveScale } from '../../lib/effective-scale.ts';
import { scaleFor, type ColorScale } from '../../lib/color-scale.ts';
import type { Matrix } from '../../protocol.ts';
import type { AppState } from '../../store/app-store.ts';
import { HEATMAP_METRICS, type HeatmapMetric } from '../../store/gates-slice.ts';
import { passMatrix } from './pass-data.ts';

export interface HeatmapData {
  readonly matrix: Matrix;
  readonly groups: readonly string[];
  readonly scale: ColorScale;
}

/** `passes`: a looped model's pass view (pass-data.ts); absent or 'combined' shows the combined gradient. */
export type HeatmapInputs = Pick<AppState, 'gates' | 'settings' | 'preview'> & Partial<Pick<AppState, 'passes'>>;

export function metricMatrix(state: HeatmapInputs, metric: HeatmapMetric): Matrix | null {
  const metrics = state.gates.metrics.result;
  if (metrics === null) return null;
  switch (metric) {
    case 'effectiveScale':
      return effectiveScale(metrics, state.settings.current);
    case 'retainedNorm': {
      const retained = state.preview.result?.retainedNorm;
      return retained !== undefined && retained.rows === metrics.gate.rows && retained.cols === metrics.gate.cols ? retained : null;
    }
    default: {
      const passes = state.passes?.metrics.result;
      return (passes === null || passes === undefined ? null : passMatrix(metrics, passes, state.passes?.view ?? 'combined', metric)) ?? metrics[metric];
    }
  }
}

/** α·S is drawn on a fixed domain (max S × 0.5), so moving α visibly brightens or dims the map. */
export function metricScale(state: HeatmapInputs, metric: HeatmapMetric, matrix: Matrix): ColorScale {
  const kind = HEATMAP_METRICS.find((m) => m.id === metric)?.scale ?? 'sequential';
  if (metric === 'retainedNorm' || metric === 'conflictShare') return { kind, min: 0, max: 1 };
  if (metric === 'effectiveScale') {
    const gate = state.gates.metrics.result?.gate.values ?? matrix.values;
    const s = scaleFor(gate, 'sequential');
    return { kind, min: 0, max: Math.max(1e-6, s.max * 0.5) };
  }
  return scaleFor(matrix.values, kind);
}

export function heatmapData(state: HeatmapInputs, metric: HeatmapMetric): HeatmapData | null {
  const matrix = metricMatrix(state, metric);
  const groups = state.gates.metrics.result?.groups;
  if (matrix === null || groups === undefined) return null;
  return { matrix, groups, scale: metricScale(state, metric, matrix) };
}
