/**
 * A complete analysis of the tiny random pair (engine/crane/testing/tiny-pair.ts), built with
 * the engine's own stage functions: gate table (dense, reference ffn), GSP projectors and the
 * preview coefficients. Shared by the preview, analysis-store and export tests.
 */
import { GateAccumulator } from '../../crane/gate-accumulator.ts';
import { computeGateTable, type GateTable } from '../../crane/gate-scales.ts';
import { GramAccumulator } from '../../crane/gram-accumulator.ts';
import { projectorFromGram, type GspProjector } from '../../crane/gsp-projector.ts';
import { classifyTensor } from '../../crane/tensor-classification.ts';
import { taskVector } from '../../crane/tensor-pair.ts';
import { TINY_HIDDEN, tinyPair, type TinyPair, type TinyTensor } from '../../crane/testing/tiny-pair.ts';
import { PreviewCoefficientBuilder, type PreviewCoefficients } from '../preview-coefficients.ts';

export interface TinyAnalysis {
  readonly pair: TinyPair;
  /** The tensors inside decoder layers that follow the crane rule (the scored ones). */
  readonly scored: readonly TinyTensor[];
  readonly gate: GateTable;
  readonly projectors: ReadonlyMap<string, GspProjector>;
  readonly coefficients: PreviewCoefficients;
}

export function tinyAnalysis(seed: number, keepQuantile = 0.5): TinyAnalysis {
  const pair = tinyPair(seed);
  const scored = pair.tensors.filter((t) => t.layer !== null);
  const gateSums = new GateAccumulator();
  for (const t of scored) gateSums.add(classifyTensor(t.name), { thetaI: t.thetaI, delta: taskVector(t.thetaI, t.thetaT), gradR: t.gradR, gradA: t.gradA });
  const projectors = new Map<string, GspProjector>();
  for (const [key, rows] of pair.activations) {
    const gram = new GramAccumulator(TINY_HIDDEN);
    gram.addRows(rows);
    projectors.set(key, projectorFromGram(gram.gram(), TINY_HIDDEN));
  }
  const builder = new PreviewCoefficientBuilder(keepQuantile, (key) => projectors.get(key));
  for (const t of scored) builder.add(classifyTensor(t.name), t.shape, { delta: taskVector(t.thetaI, t.thetaT), gradR: t.gradR, gradA: t.gradA });
  return { pair, scored, gate: computeGateTable(gateSums.blocks(), 'ffn'), projectors, coefficients: builder.build() };
}
