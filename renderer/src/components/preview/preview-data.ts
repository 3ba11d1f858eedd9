/** Chart rows of the preview: the predicted curves and the measured (Verify) points. */
import type { Preview, VerifyResult } from '../../protocol.ts';

export interface CurveRow {
  readonly alpha: number;
  readonly reasoning: number;
  readonly agent: number;
}

export interface MeasuredPoint {
  readonly alpha: number;
  readonly reasoning: number;
  readonly agent: number;
}

export function curveRows(preview: Preview): CurveRow[] {
  const { alphas, deltaLossReasoning, deltaLossAgent } = preview.curve;
  return Array.from(alphas, (alpha, i) => ({ alpha, reasoning: deltaLossReasoning[i] ?? NaN, agent: deltaLossAgent[i] ?? NaN }));
}

/** Measured ΔL = edited − base, for CRANE results (the only ones with an α). */
export function measuredPoints(results: readonly VerifyResult[]): MeasuredPoint[] {
  return results.flatMap((r) =>
    r.method.kind === 'crane'
      ? [{ alpha: r.method.settings.alpha, reasoning: r.edited.reasoning - r.base.reasoning, agent: r.edited.agent - r.base.agent }]
      : [],
  );
}
