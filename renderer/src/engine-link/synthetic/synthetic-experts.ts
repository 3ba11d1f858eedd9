/**
 * A made-up getExpertMetrics answer for the synthetic engine's MoE shapes: S per expert from the
 * synthetic fine gate columns (`expert.e`), and routing in which the first quarter of the experts
 * leans to D_R, the last quarter to D_A, so the experts view has structure to look at.
 */
import type { GateMetrics, Matrix, Result } from '../../protocol.ts';
import { SeededRandom } from '../../protocol.ts';
import type { SyntheticShape } from './synthetic-model.ts';

type ExpertMetrics = NonNullable<Result<'getExpertMetrics'>>;

const TOKENS = { reasoning: 4096, agent: 2048, format: 512 } as const;

export function syntheticExpertMetrics(shape: SyntheticShape, fine: GateMetrics): ExpertMetrics | null {
  const { layers, experts } = shape;
  if (experts === 0) return null;
  const k = Math.min(8, experts);
  const matrix = (): Matrix => ({ rows: layers, cols: experts, values: new Float32Array(layers * experts) });
  const column = (name: keyof Omit<GateMetrics, 'layers' | 'groups'>): Matrix => {
    const out = matrix();
    for (let e = 0; e < experts; e++) {
      const c = fine.groups.indexOf(`expert.${e}`);
      for (let l = 0; l < layers; l++) out.values[l * experts + e] = fine[name].values[l * fine.groups.length + c] ?? NaN;
    }
    return out;
  };
  const random = new SeededRandom(13);
  const routed = (set: keyof typeof TOKENS, lean: (e: number) => number) => {
    const counts = matrix();
    const probability = matrix();
    for (let l = 0; l < layers; l++) {
      const weights = Array.from({ length: experts }, (_, e) => Math.exp(lean(e) + 0.6 * random.normal()));
      const total = weights.reduce((a, b) => a + b, 0);
      weights.forEach((w, e) => {
        probability.values[l * experts + e] = w / total;
        counts.values[l * experts + e] = Math.round((TOKENS[set] * k * w) / total);
      });
    }
    return { tokens: TOKENS[set], routed: counts, meanProbability: probability };
  };
  const quarter = experts / 4;
  return {
    layers,
    experts,
    expertsPerToken: k,
    gate: column('gate'),
    sumReasoning: column('sumReasoning'),
    sumAgent: column('sumAgent'),
    conflictShare: column('conflictShare'),
    relativeDelta: column('relativeDelta'),
    routing: {
      reasoning: routed('reasoning', (e) => (e < quarter ? 1 : 0)),
      agent: routed('agent', (e) => (e >= experts - quarter ? 1 : 0)),
      format: routed('format', (e) => (e % 4 === 1 ? 0.8 : 0)),
    },
  };
}
