/**
 * `crane verify ANALYSIS_DIR --alpha A [...]`: build the edited weights (at read time, nothing
 * written) and measure L_R and L_A on the evaluation set — the analysis' own or the one the flags
 * name — beside the first-order prediction (engine/pipeline/verify.ts), saying which set it was.
 */
import { editMethodOf, EDIT_FLAGS, EDIT_FLAGS_HELP, methodSettingsWithTokenRows } from './cli-settings.ts';
import { LEWIS_FILE_FLAGS, LEWIS_FILES_HELP, lewisImportancesFromFlags } from './lewis-flags.ts';
import { tokenRowsOf } from '../pipeline/edit-method.ts';
import { loadCheckpointTokenizer } from '../pipeline/checkpoint-tokenizer.ts';
import { readPipelineRecord } from '../pipeline/pipeline-folder.ts';
import { formatDuration, ProgressPrinter } from '../pipeline/progress-text.ts';
import { readAnalysisAimImportance } from '../pipeline/aim-importance.ts';
import { verifyEdit, type LossPair } from '../pipeline/verify.ts';
import { describeEvaluation } from '../protocol/evaluation-set.ts';
import { initBackend } from '../tensor/backend.ts';
import { parseCommandArgs, UsageError, type CliCommand } from './command.ts';
import { EVAL_FILE_FLAGS, evalFilesHelp, verifyEvaluationFromFlags } from './evaluation-flags.ts';
import { formatTable } from './format.ts';
import { RAIN_FLAGS, RAIN_FLAGS_HELP, rainInputsFromFlags } from './rain-flags.ts';
import { applyMemoryBudgetFlag, MEMORY_BUDGET_FLAG, memoryBudgetHelp } from './memory-budget-flag.ts';
import { assertOverridesMatchCheckpoint } from './override-keys.ts';

const HELP = `Usage: crane verify ANALYSIS_DIR [--alpha A] [settings] [--eval-reasoning R --eval-tool-use A | --on-calibration] [--json]

Builds the edited weights of a method from a finished analysis (crane analyze) and measures the
calibration losses L_R (reasoning) and L_A (agent/tool use) of Instruct and of the edit, next to
the first-order prediction of \`crane preview\` for the same settings (CRANE only). It measures
on the evaluation set the analysis was given (crane analyze --eval-reasoning/--eval-tool-use or
--held-out), else on the calibration sets themselves — the sequences the gradients used, which
is how the first-order accuracy is checked; the output says which. Takes a few forward passes;
decoded targets of evaluation files are added to the analysis' decode cache, nothing else is
written.

${EDIT_FLAGS_HELP}
${LEWIS_FILES_HELP}
                        LEWIS without either: the analysis' own pair, measured on Instruct and
                        Thinking on its D_R + D_A prompts on first use and kept there
${RAIN_FLAGS_HELP}
${evalFilesHelp(18)}
  --on-calibration  measure on the calibration sets whatever the analysis was given
${memoryBudgetHelp(18)}
  --json            machine-readable output
  -h, --help`;

export const verifyCommand: CliCommand = {
  name: 'verify',
  summary: 'measure L_R / L_A of an edit on the evaluation set, next to the prediction',
  help: HELP,
  run: async (args, io) => {
    const { values, positionals } = parseCommandArgs(args, { ...EDIT_FLAGS, ...LEWIS_FILE_FLAGS, ...RAIN_FLAGS, ...EVAL_FILE_FLAGS, 'on-calibration': { type: 'boolean' }, json: { type: 'boolean' }, ...MEMORY_BUDGET_FLAG });
    if (positionals.length !== 1) throw new UsageError('expected one analysis folder');
    const dir = positionals[0] as string;
    const evaluation = verifyEvaluationFromFlags(values);
    const record = await readPipelineRecord(dir);
    const aimImportance = values.method === 'aim' || values.method === 'aim_ties' ? await readAnalysisAimImportance(dir) : undefined;
    applyMemoryBudgetFlag(values['memory-budget']);
    const rain = rainInputsFromFlags(values);
    const lewisFiles = await lewisImportancesFromFlags(values, { dir, io });
    // Instruct's tokenizer is built for CRANE's token rows only (cli-settings.ts methodSettingsWithTokenRows).
    const tokenRows = async () => tokenRowsOf((await loadCheckpointTokenizer(record.instruct)).source.tokenizerJson);
    const method = rain?.settings ?? editMethodOf(await methodSettingsWithTokenRows(values, tokenRows), aimImportance, lewisFiles && { base: lewisFiles.base.importance, tuned: lewisFiles.tuned.importance });
    if (method.method === 'crane') await assertOverridesMatchCheckpoint(method.settings.overrideScales, record.instruct);
    await initBackend();
    const bar = new ProgressPrinter(io.err);
    const result = await verifyEdit({ analysisDir: dir, method, ...(rain === undefined ? {} : { rain }), ...(evaluation === undefined ? {} : { evaluation }), ...(io.isTty ? { onProgress: (e) => bar.progress(e) } : {}) });
    if (values.json === true) {
      io.out(JSON.stringify({ method: values.method ?? 'crane', ...result }));
      return 0;
    }
    const row = (label: string, pick: (p: LossPair) => number) => [
      label, result.base[label === 'L_R' ? 'reasoning' : 'agent'].toFixed(5), pick(result.edited).toFixed(5), signed(pick(result.measured)),
      result.predicted === null ? 'n/a' : signed(pick(result.predicted)),
    ];
    io.out(`${values.method ?? 'crane'} measured on ${describeEvaluation(result.measuredOn)} (${result.sequences.reasoning} + ${result.sequences.agent} sequences, ${result.tokens.reasoning} + ${result.tokens.agent} target tokens, ${formatDuration(result.seconds)})\n`);
    io.out(formatTable(['loss', 'Instruct', 'edited', 'measured ΔL', 'predicted ΔL'], [row('L_R', (p) => p.reasoning), row('L_A', (p) => p.agent)]));
    for (const note of result.notes) io.err(`note: ${note}`);
    return 0;
  },
};

function signed(x: number): string {
  return `${x >= 0 ? '+' : ''}${x.toFixed(5)}`;
}
