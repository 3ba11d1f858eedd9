/**
 * preview: InstantPreview.evaluate at the UI's settings, laid out on the heatmap's columns,
 * with its per-group breakdown, curvature state and measured range passed through as they are
 * (the session builds the preview with the analysis' curvature stage when it has finished).
 *
 * Two translations: the preview's retainedFraction is ‖Π(U)‖²/‖U‖² while the protocol's
 * retainedNorm is ‖Δ'‖/‖Δ‖ (its square root); and blocks the preview does not cover (routers:
 * SLERP is not α·S·T(δ)) still get a cell — α·S from the gate, nothing removed — so every
 * heatmap cell has a value. A keep-quantile other than the analysed one is the caller's to fix
 * ('invalid-params'): the coefficients bake T(δ) in at one q. An analysis imported from a
 * reference run has no gradients, hence no coefficients: the preview says so, never answers zeros.
 */
import type { PreviewResult } from '../analysis/preview.ts';
import { PREVIEW_NEEDS_GRADIENTS } from '../pipeline/reference-run.ts';
import { blockScale } from '../protocol/block-scale.ts';
import { ProtocolError } from '../protocol/errors.ts';
import type { Params, Result } from '../protocol/methods.ts';
import { resolveCraneSettings } from './edit-settings.ts';
import type { EngineSession } from './engine-session.ts';
import { guarded } from './handler-errors.ts';

const NO_TOKENS = { think: [], special: [] };

export function previewHandler(session: EngineSession) {
  return ({ settings, alphas }: Params<'preview'>): Promise<Result<'preview'>> =>
    guarded(async () => {
      const analysis = await session.analysis();
      if (analysis.artifacts.origin === 'reference-run') throw new ProtocolError('invalid-params', PREVIEW_NEEDS_GRADIENTS);
      let result: PreviewResult;
      try {
        result = analysis.preview.evaluate(resolveCraneSettings(settings, analysis.columns, NO_TOKENS), Float64Array.from(alphas));
      } catch (error) {
        if (error instanceof RangeError) throw new ProtocolError('invalid-params', `${error.message} (run Analyze at this q)`);
        throw error;
      }
      const columns = analysis.columns[settings.granularity];
      const effective = columns.matrix((s) => settings.alpha * blockScale(settings.stages.gate, s.scale)).values;
      const retained = new Float32Array(effective.length).fill(1);
      result.blocks.forEach((key, i) => {
        const cell = columns.cell(key);
        if (cell < 0) return;
        effective[cell] = result.effectiveScale[i] as number;
        retained[cell] = Math.sqrt(Math.max(0, Math.min(1, result.retainedFraction[i] as number)));
      });
      const shape = { rows: columns.layers, cols: columns.names.length };
      const { curve } = result;
      return {
        deltaLossReasoning: result.deltaLossReasoning,
        deltaLossAgent: result.deltaLossAgent,
        firstOrder: result.firstOrder,
        breakdown: [...result.breakdown],
        curve: {
          alphas: Float32Array.from(curve.alphas),
          deltaLossReasoning: Float32Array.from(curve.deltaLossReasoning),
          deltaLossAgent: Float32Array.from(curve.deltaLossAgent),
          firstOrderReasoning: Float32Array.from(curve.firstOrderReasoning),
          firstOrderAgent: Float32Array.from(curve.firstOrderAgent),
        },
        curvature: { state: result.curvature.state, staleReasons: result.curvature.state === 'absent' ? [] : [...result.curvature.staleReasons] },
        range: result.range === null ? null : { ...result.range, tolerance: { ...result.range.tolerance }, anchors: [...result.range.anchors] },
        effectiveScale: { ...shape, values: effective },
        retainedNorm: { ...shape, values: retained },
      };
    });
}
