/**
 * Which backward passes the curvature stage makes: one per direction while B fits the budget
 * (the dense M, exactly as measured before sketches existed), else `budget` probes
 * (analysis/curvature-sketch.ts). No budget given: dense up to DENSE_CURVATURE_DIRECTIONS, else
 * DEFAULT_SKETCH_PROBES (analysis-settings.ts says why).
 *
 *   curvatureProbes(directions, coefficients, budget?) → { dense, probes: [{ name, steps }] }
 *
 * A probe's `steps` are the edit it measures, in direction coordinates (θ_I + Σ_b steps[b]·Δ_b);
 * its pass gives the column Y = M·steps (forward difference of ∇L against the base pass).
 * Dense: steps = ε_b on direction b alone, ε_b the default coefficient floored at EPSILON_FLOOR.
 * Sketch: steps = the default coefficients on the probe's cell, scaled up to EPSILON_FLOOR when
 * the cell's largest is below it (a smaller step would measure rounding, not curvature): a
 * secant to the default edit's own part in that cell, as ε_b is for one direction.
 */
import { probeCells } from '../analysis/curvature-sketch.ts';
import type { EditDirection } from '../crane/edit-directions.ts';
import { DEFAULT_SKETCH_PROBES, DENSE_CURVATURE_DIRECTIONS } from './analysis-settings.ts';

export const EPSILON_FLOOR = 0.05;

export interface CurvatureProbe {
  /** Its name in the stage's pass log (dense: the direction index, as before sketches). */
  readonly name: string;
  readonly steps: Float64Array;
}

export function curvatureProbes(directions: readonly EditDirection[], coefficients: readonly number[], budget: number | undefined): { dense: boolean; probes: CurvatureProbe[] } {
  const size = directions.length;
  if (size <= (budget ?? DENSE_CURVATURE_DIRECTIONS)) {
    return {
      dense: true,
      probes: coefficients.map((c, b) => {
        const steps = new Float64Array(size);
        steps[b] = Math.max(EPSILON_FLOOR, c);
        return { name: `${b}`, steps };
      }),
    };
  }
  return {
    dense: false,
    probes: probeCells(directions, budget ?? DEFAULT_SKETCH_PROBES).map((cell, j) => {
      const steps = new Float64Array(size);
      const largest = cell.reduce((max, b) => Math.max(max, Math.abs(coefficients[b] as number)), 0);
      const scale = largest === 0 ? 0 : Math.max(1, EPSILON_FLOOR / largest);
      for (const b of cell) steps[b] = largest === 0 ? EPSILON_FLOOR : scale * (coefficients[b] as number);
      return { name: `probe${j}`, steps };
    }),
  };
}
