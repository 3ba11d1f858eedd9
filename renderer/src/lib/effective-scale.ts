/**
 * α · S per block, computed in the page from the gate metrics and the current settings, so the
 * heatmap follows a slider without a round trip. Overrides replace S, locked blocks are 0, and
 * with the CTG stage off every block gets S = 1.
 */
import type { CraneSettings, GateMetrics, Matrix } from '../protocol.ts';

export function effectiveScale(metrics: GateMetrics, settings: CraneSettings): Matrix {
  const { rows, cols, values } = metrics.gate;
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = settings.alpha * (settings.stages.ctg ? (values[i] ?? 0) : 1);
  for (const { block, gate, locked } of settings.overrides) {
    const col = metrics.groups.indexOf(block.group);
    if (col < 0 || block.layer >= rows) continue;
    const i = block.layer * cols + col;
    if (locked) out[i] = 0;
    else if (gate !== null) out[i] = settings.alpha * gate;
  }
  return { rows, cols, values: out };
}
