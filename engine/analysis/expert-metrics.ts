/**
 * The layer × expert views of an MoE analysis (protocol/expert-schemas.ts), from its gate table
 * and its router statistics.
 *
 *   expertMetrics(gate, routerStats, layers) → ExpertMetrics | null    (null: no routed experts)
 *
 * Gate metrics come from each expert's fine block `expert.e@l` (gate-accumulator.ts gateBlock);
 * routing from router-stats.json as measured, counts and mean probabilities unchanged. A cell
 * with no value (a dense layer in an MoE stack) is NaN, so a view can tell "none" from 0. A fused
 * checkpoint's experts have their blocks too: the gates stage scores a fused tensor per expert.
 */
import type { BlockScore, GateTable } from '../crane/gate-scales.ts';
import { isExpertBlock } from '../crane/gate-scales.ts';
import type { ExpertMetrics, RoutedSet } from '../protocol/expert-schemas.ts';
import type { RouterStats, RouterStatsSet } from './router-stats.ts';

type Matrix = ExpertMetrics['gate'];

export function expertMetrics(gate: GateTable, stats: RouterStats | undefined, layers: number): ExpertMetrics | null {
  const blocks = [...gate.scores.values()].filter((s) => s.id.layer !== null && s.id.layer < layers && isExpertBlock(s.id));
  const experts = Math.max(stats?.numExperts ?? 0, ...blocks.map((s) => Number(s.id.block) + 1));
  if (experts === 0) return null;
  const gateMatrix = (value: (score: BlockScore) => number): Matrix => {
    const values = new Float32Array(layers * experts).fill(Number.NaN);
    for (const score of blocks) values[(score.id.layer as number) * experts + Number(score.id.block)] = value(score);
    return { rows: layers, cols: experts, values };
  };
  const routed = (set: RouterStatsSet): RoutedSet | null => {
    const entry = stats?.sets[set];
    if (entry === undefined) return null;
    const counts = new Float32Array(layers * experts).fill(Number.NaN);
    const probability = new Float32Array(layers * experts).fill(Number.NaN);
    for (const { layer, routed: perExpert, meanProbability } of entry.layers) {
      if (layer >= layers) continue;
      counts.set(perExpert, layer * experts);
      probability.set(meanProbability, layer * experts);
    }
    return { tokens: entry.tokens, routed: { rows: layers, cols: experts, values: counts }, meanProbability: { rows: layers, cols: experts, values: probability } };
  };
  return {
    layers,
    experts,
    expertsPerToken: stats?.expertsPerToken ?? 0,
    gate: gateMatrix((s) => s.scale),
    sumReasoning: gateMatrix((s) => s.sums.reasoning),
    sumAgent: gateMatrix((s) => s.sums.agent),
    conflictShare: gateMatrix((s) => s.conflictShare),
    relativeDelta: gateMatrix((s) => (s.thetaNorm > 0 ? s.deltaNorm / s.thetaNorm : 0)),
    routing: { reasoning: routed('reasoning'), agent: routed('agent'), format: routed('format') },
  };
}
