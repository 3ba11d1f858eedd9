/**
 * Analytic FLOPs of the decoder runtime, shared by the compute benchmarks
 * (bench-train-step.ts, bench-analysis.ts): 2·m·n·k per matmul, the T×T attention products
 * counted in full, as they are computed.
 */
import type { ModelSpec } from '../engine/model/config.ts';

/** Forward FLOPs of one sequence of length T (layers + head on every row). */
export function forwardFlops(spec: ModelSpec, t: number): { layers: number; head: number } {
  const { hiddenSize: h, numHeads: nh, numKvHeads: nkv, headDim: d, intermediateSize: m } = spec;
  const projections = 2 * t * h * (nh * d + 2 * nkv * d) + 2 * t * nh * d * h;
  const attention = 2 * 2 * nh * t * t * d;
  const mlp = 2 * 3 * t * h * m;
  return { layers: spec.numLayers * (projections + attention + mlp), head: 2 * t * h * spec.vocabSize };
}
