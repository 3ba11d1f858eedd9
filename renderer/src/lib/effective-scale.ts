/**
 * α · S per heatmap cell, computed in the page from the gate metrics and the current settings, so
 * the heatmap follows a slider without a round trip. S per cell is the engine's rule
 * (blockScale/overrideScale, engine/protocol/block-scale.ts): overrides replace S, locked blocks
 * are 0, and with the gate stage off every other block gets S = 1.
 */
import { blockScale, overrideScale, type CraneSettings, type GateMetrics, type Matrix } from '../protocol.ts';

export function effectiveScale(metrics: GateMetrics, settings: CraneSettings): Matrix {
  const { rows, cols, values } = metrics.gate;
  const gateOn = settings.stages.gate;
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = settings.alpha * blockScale(gateOn, values[i]);
  for (const override of settings.overrides) {
    const col = metrics.groups.indexOf(override.block.group);
    if (col < 0 || override.block.layer >= rows) continue;
    const i = override.block.layer * cols + col;
    out[i] = settings.alpha * blockScale(gateOn, values[i], overrideScale(override));
  }
  return { rows, cols, values: out };
}
