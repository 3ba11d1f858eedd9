/**
 * What the layer × expert heatmap shows for each expert metric: the engine's matrices as they
 * come (S per expert, Σs_R, Σs_A, mean router probability) or derived from the routing counts
 * (each set's share of routed tokens: count / (tokens × k), so sets of any size compare; D_R's
 * share minus D_A's). Pure functions shared by the canvas, the legend and the tooltip.
 */
import { scaleFor } from '../../lib/color-scale.ts';
import type { Matrix } from '../../protocol.ts';
import { EXPERT_METRICS, type ExpertMetric, type ExpertMetrics } from '../../store/experts-slice.ts';
import type { HeatmapData } from './heatmap-data.ts';

type RoutedSetName = keyof ExpertMetrics['routing'];

/** The share of a set's routing slots that went to each expert; null when the set was not measured. */
export function routedShare(metrics: ExpertMetrics, set: RoutedSetName): Matrix | null {
  const routed = metrics.routing[set];
  if (routed === null) return null;
  const slots = routed.tokens * metrics.expertsPerToken;
  const values = routed.routed.values.map((count) => (slots > 0 ? count / slots : NaN));
  return { rows: metrics.layers, cols: metrics.experts, values };
}

export function expertMatrix(metrics: ExpertMetrics, metric: ExpertMetric): Matrix | null {
  switch (metric) {
    case 'shareReasoning':
      return routedShare(metrics, 'reasoning');
    case 'shareAgent':
      return routedShare(metrics, 'agent');
    case 'shareFormat':
      return routedShare(metrics, 'format');
    case 'reasoningVsAgent': {
      const [reasoning, agent] = [routedShare(metrics, 'reasoning'), routedShare(metrics, 'agent')];
      if (reasoning === null || agent === null) return null;
      return { ...reasoning, values: reasoning.values.map((r, i) => r - (agent.values[i] as number)) };
    }
    case 'probabilityReasoning':
      return metrics.routing.reasoning?.meanProbability ?? null;
    case 'probabilityAgent':
      return metrics.routing.agent?.meanProbability ?? null;
    case 'probabilityFormat':
      return metrics.routing.format?.meanProbability ?? null;
    default:
      return metrics[metric];
  }
}

/** The heatmap's rows are the experts, named by index. */
function expertNames(experts: number): string[] {
  return Array.from({ length: experts }, (_, e) => String(e));
}

export function expertHeatmapData(metrics: ExpertMetrics | null, metric: ExpertMetric): HeatmapData | null {
  const matrix = metrics === null ? null : expertMatrix(metrics, metric);
  if (metrics === null || matrix === null) return null;
  const kind = EXPERT_METRICS.find((m) => m.id === metric)?.scale ?? 'sequential';
  return { matrix, groups: expertNames(metrics.experts), scale: scaleFor(matrix.values, kind) };
}

/** The protocol block of one expert (`expert.17`), as inspectLayer and the fine gate columns name it. */
export const expertBlockName = (expert: number): string => `expert.${expert}`;

/** The expert a block name stands for, or null when it names no single expert. */
export function expertOfBlock(group: string): number | null {
  const match = /^expert\.(\d+)$/.exec(group);
  return match === null ? null : Number(match[1]);
}

/** S of one expert's block from the expert metrics (NaN when unknown), whatever the gate heatmap's granularity. */
export function expertGate(metrics: ExpertMetrics | null, block: { readonly layer: number; readonly group: string }): number {
  const expert = expertOfBlock(block.group);
  if (metrics === null || expert === null || expert >= metrics.experts || block.layer >= metrics.layers) return NaN;
  return metrics.gate.values[block.layer * metrics.experts + expert] ?? NaN;
}

/** Block names a picker offers: the heatmap's columns plus every expert of an MoE analysis. */
export function withExpertBlocks(groups: readonly string[], experts: number): string[] {
  const missing = Array.from({ length: experts }, (_, e) => expertBlockName(e)).filter((name) => !groups.includes(name));
  return [...groups, ...missing];
}
