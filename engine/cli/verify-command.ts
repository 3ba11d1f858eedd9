/**
 * `crane verify ANALYSIS_DIR --alpha A [...]`: build the edited weights (at read time, nothing
 * written) and measure L_R and L_A on the held-out calibration split, beside the first-order
 * prediction (engine/pipeline/verify.ts).
 */
import { join } from 'node:path';
import { editMethodFromFlags, EDIT_FLAGS, EDIT_FLAGS_HELP } from './cli-settings.ts';
import { tokenRowsOf } from '../pipeline/edit-method.ts';
import { loadCheckpointTokenizer } from '../pipeline/checkpoint-tokenizer.ts';
import { pipelinePaths, readPipelineRecord } from '../pipeline/pipeline-folder.ts';
import { formatDuration, ProgressPrinter } from '../pipeline/progress-text.ts';
import { MAGNITUDES_FILE, readInputMagnitudes } from '../pipeline/projectors-stage.ts';
import { verifyEdit, type LossPair } from '../pipeline/verify.ts';
import { initBackend } from '../tensor/backend.ts';
import { parseCommandArgs, UsageError, type CliCommand } from './command.ts';
import { formatTable } from './format.ts';

const HELP = `Usage: crane verify ANALYSIS_DIR [--alpha A] [settings] [--split heldout|train] [--json]

Builds the edited weights of a method from a finished analysis (crane analyze) and measures the
calibration losses L_R (reasoning) and L_A (agent/tool use) of Instruct and of the edit on the
held-out split — sequences the gradients never saw — next to the first-order prediction of
\`crane preview\` for the same settings (CRANE only). --split train measures the sequences the
prediction is about, which is how the first-order accuracy is checked. Takes a few forward
passes; nothing is written.

${EDIT_FLAGS_HELP}
  --split S         heldout (default) or train
  --json            machine-readable output
  -h, --help`;

export const verifyCommand: CliCommand = {
  name: 'verify',
  summary: 'measure L_R / L_A of an edit on the held-out calibration split, next to the prediction',
  help: HELP,
  run: async (args, io) => {
    const { values, positionals } = parseCommandArgs(args, { ...EDIT_FLAGS, split: { type: 'string' }, json: { type: 'boolean' } });
    if (positionals.length !== 1) throw new UsageError('expected one analysis folder');
    const dir = positionals[0] as string;
    const split = values.split ?? 'heldout';
    if (split !== 'heldout' && split !== 'train') throw new UsageError(`--split must be heldout or train, got "${split}"`);
    const record = await readPipelineRecord(dir);
    const tokens = tokenRowsOf(await loadCheckpointTokenizer(record.instruct));
    const magnitudes = values.method === 'aim' ? await readInputMagnitudes(join(pipelinePaths(dir).projectors, MAGNITUDES_FILE)) : undefined;
    const method = editMethodFromFlags(values, tokens, magnitudes);
    await initBackend();
    const bar = new ProgressPrinter(io.err);
    const result = await verifyEdit({ analysisDir: dir, method, split, ...(io.isTty ? { onProgress: (e) => bar.progress(e) } : {}) });
    if (values.json === true) {
      io.out(JSON.stringify({ method: values.method ?? 'crane', ...result }));
      return 0;
    }
    const row = (label: string, pick: (p: LossPair) => number) => [
      label, result.base[label === 'L_R' ? 'reasoning' : 'agent'].toFixed(5), pick(result.edited).toFixed(5), signed(pick(result.measured)),
      result.predicted === null ? 'n/a' : signed(pick(result.predicted)),
    ];
    io.out(`${values.method ?? 'crane'} on the ${split} split (${result.sequences.reasoning} + ${result.sequences.agent} sequences, ${result.tokens.reasoning} + ${result.tokens.agent} target tokens, ${formatDuration(result.seconds)})\n`);
    io.out(formatTable(['loss', 'Instruct', 'edited', 'measured ΔL', 'predicted ΔL'], [row('L_R', (p) => p.reasoning), row('L_A', (p) => p.agent)]));
    for (const note of result.notes) io.err(`note: ${note}`);
    return 0;
  },
};

function signed(x: number): string {
  return `${x >= 0 ? '+' : ''}${x.toFixed(5)}`;
}
