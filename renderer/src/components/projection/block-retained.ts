/**
 * The selected block's Retained cell of the heatmap (‖Π(U)‖/‖U‖ over every tensor of the block),
 * so the GSP panel can show it beside its projector's own share: the two differ because a block
 * also holds tensors the projector does not act on (o_proj, down_proj), which GSP keeps whole.
 */
import { matrixValue } from '../../lib/heatmap-geometry.ts';
import type { AppState } from '../../store/app-store.ts';
import { metricMatrix } from '../heatmap/heatmap-data.ts';

export function selectedBlockRetained(state: Pick<AppState, 'gates' | 'settings' | 'preview' | 'selection'>): number | null {
  const block = state.selection.block;
  const groupIndex = state.gates.metrics.result?.groups.indexOf(block?.group ?? '') ?? -1;
  const retained = metricMatrix(state, 'retainedNorm');
  if (block === null || groupIndex < 0 || retained === null || block.layer >= retained.rows) return null;
  const value = matrixValue(retained, { layer: block.layer, groupIndex });
  return Number.isFinite(value) ? value : null;
}
