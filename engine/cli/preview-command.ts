/**
 * `crane preview ANALYSIS_DIR [settings]`: the instant preview of a CRANE edit —
 * predicted ΔL_R and ΔL_A and, per block, α·S and the retained update-norm fraction — from an
 * analysis folder, without touching a weight.
 */
import { InstantPreview } from '../analysis/preview.ts';
import { loadCurvature } from '../pipeline/curvature-stage.ts';
import { PREVIEW_NEEDS_GRADIENTS } from '../pipeline/reference-run.ts';
import { CRANE_FLAGS_HELP, EDIT_FLAGS, methodSettingsFromFlags } from './cli-settings.ts';
import { loadPipelineAnalysis } from '../pipeline/pipeline-folder.ts';
import { parseCommandArgs, UsageError, type CliCommand } from './command.ts';
import { formatTable } from './format.ts';

const HELP = `Usage: crane preview ANALYSIS_DIR [--alpha A] [--tau T] [--k K] [--q Q] [--no-threshold|--no-gate|--no-gsp] [--fine] [--json]

Preview of a CRANE edit from a finished analysis (crane analyze): ΔL_K ≈ g_K · Δθ + ½ ΔθᵀH_KΔθ
over the edit's blocks, so a positive ΔL means the loss goes UP. First order covers every edited
tensor (decoder layers, <think> rows, lm_head, final norm; routers are not included) and the
curvature comes from the analysis' curvature stage; without that stage, first order over the
layer tensors only. Prints ΔL_R (reasoning) and ΔL_A (agent/tool use) with their first-order
part, then α·S and the retained fraction ‖Π(U)‖²/‖U‖² of every block. Takes milliseconds: try
many settings.

${CRANE_FLAGS_HELP}
  --json            machine-readable output (also the α curve)
  -h, --help`;

export const previewCommand: CliCommand = {
  name: 'preview',
  summary: 'instant ΔL_R / ΔL_A (first order + curvature) and per-block scales of a CRANE edit from an analysis',
  help: HELP,
  run: async (args, io) => {
    const { values, positionals } = parseCommandArgs(args, { ...EDIT_FLAGS, json: { type: 'boolean' } });
    if (positionals.length !== 1) throw new UsageError('expected one analysis folder');
    // The method's flags are read as on verify and merge, so another method's flag (--density) is refused, not ignored.
    const edit = values.method === undefined || values.method === 'crane' ? methodSettingsFromFlags(values, { think: [], special: [] }) : undefined;
    if (edit?.method !== 'crane') throw new UsageError('the preview covers CRANE edits only (--method crane)');
    const { settings } = edit;
    const dir = positionals[0] as string;
    const { record, artifacts } = await loadPipelineAnalysis(dir);
    if (artifacts.origin === 'reference-run') throw new UsageError(PREVIEW_NEEDS_GRADIENTS);
    const started = performance.now();
    let result;
    try {
      result = new InstantPreview(artifacts.coefficients, artifacts.gate, await loadCurvature(dir, record)).evaluate(settings);
    } catch (error) {
      // The coefficients bake in one keep quantile; any other is a settings problem, not a crash.
      if (error instanceof RangeError) throw new UsageError(error.message);
      throw error;
    }
    const milliseconds = performance.now() - started;
    if (values.json === true) {
      io.out(JSON.stringify({
        deltaLossReasoning: result.deltaLossReasoning,
        deltaLossAgent: result.deltaLossAgent,
        firstOrder: result.firstOrder,
        breakdown: result.breakdown,
        curvature: result.curvature,
        blocks: result.blocks.map((block, i) => ({ block, effectiveScale: result.effectiveScale[i], retainedFraction: result.retainedFraction[i] })),
        curve: { alphas: Array.from(result.curve.alphas), deltaLossReasoning: Array.from(result.curve.deltaLossReasoning), deltaLossAgent: Array.from(result.curve.deltaLossAgent) },
        milliseconds,
      }));
      return 0;
    }
    const rows = result.blocks.map((block, i) => [block, (result.effectiveScale[i] as number).toFixed(4), (result.retainedFraction[i] as number).toFixed(4)]);
    const order = result.curvature.state === 'absent' ? 'first order, layer tensors (no curvature stage)' : `first order ${signed(result.firstOrder.reasoning)} / ${signed(result.firstOrder.agent)} + curvature${result.curvature.state === 'stale' ? ` (stale: ${result.curvature.staleReasons.join('; ')})` : ''}`;
    io.out(`predicted ΔL_R ${signed(result.deltaLossReasoning)}   ΔL_A ${signed(result.deltaLossAgent)}   (α = ${settings.alpha}, ${order}, ${milliseconds.toFixed(1)} ms)\n`);
    io.out(formatTable(['block', 'α·S', 'retained'], rows));
    return 0;
  },
};

function signed(x: number): string {
  return `${x >= 0 ? '+' : ''}${x.toFixed(5)}`;
}
