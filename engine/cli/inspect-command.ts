/** `crane inspect DIR [DIR2] [--json]`: a checkpoint's tensor table, or a pair's compatibility. */
import { Checkpoint } from '../io/checkpoint.ts';
import { comparePair, type PairReport } from '../io/pair-report.ts';
import { checkpointSummary, tensorRows } from '../handlers/checkpoint-views.ts';
import { formatBytes } from '../protocol/format-bytes.ts';
import { formatIdRanges } from '../protocol/protected-tokens.ts';
import { parseCommandArgs, UsageError, type CliCommand } from './command.ts';
import { formatTable } from './format.ts';

const HELP = `Usage: crane inspect DIR [DIR2] [--json]
       crane inspect INSTRUCT THINKING --base BASE [--json]

With one folder: print the checkpoint's summary (architecture, shards, tokenizer files) and its
tensor table (name, dtype, shape, shard, bytes).
With two folders (Instruct first, Thinking second): print the pair compatibility report —
config fields, tensor names/shapes/dtypes, tokenizer vocabulary, special-token ids and chat
templates — and the lm_head rows an edit keeps at θ_I: Instruct's added tokens but
<think>/</think>, as the CRANE reference (change them with --protect-ids on merge/verify).
With --base, the report also checks the Base checkpoint that methods forming τ = Instruct − Base
need (RAIN): same architecture, every tensor of the pair present in the same shape.
Exits 1 when the pair (or the pair with its base) cannot be edited together.

Options:
  --base BASE  the Base checkpoint folder (pair reports only)
  --json       machine-readable output
  -h, --help`;

export const inspectCommand: CliCommand = {
  name: 'inspect',
  summary: 'tensor table of a checkpoint, or the compatibility report of an Instruct/Thinking pair',
  help: HELP,
  run: async (args, io) => {
    const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' }, base: { type: 'string' } });
    if (positionals.length < 1 || positionals.length > 2) throw new UsageError('expected one or two checkpoint folders');
    if (values.base !== undefined && positionals.length !== 2) throw new UsageError('--base needs a pair: crane inspect INSTRUCT THINKING --base BASE');
    const checkpoints: Checkpoint[] = [];
    try {
      for (const dir of [...positionals, ...(values.base === undefined ? [] : [values.base])]) checkpoints.push(await Checkpoint.open(dir));
      const [first, second, base] = checkpoints as [Checkpoint, Checkpoint | undefined, Checkpoint | undefined];
      if (second === undefined) {
        io.out(values.json === true ? JSON.stringify(describeCheckpoint(first), null, 2) : formatCheckpoint(first));
        return 0;
      }
      const report = await comparePair(first, second, base);
      io.out(values.json === true ? JSON.stringify(report, null, 2) : formatPairReport(report));
      return report.compatible ? 0 : 1;
    } finally {
      await Promise.all(checkpoints.map((c) => c.close()));
    }
  },
};

/** The same facts the studio's inspectCheckpoint answers with: summary plus tensor table. */
function describeCheckpoint(checkpoint: Checkpoint) {
  return { ...checkpointSummary(checkpoint), tensors: tensorRows(checkpoint) };
}

function formatCheckpoint(checkpoint: Checkpoint): string {
  const d = describeCheckpoint(checkpoint);
  const summary = [
    `Checkpoint   ${d.dir}`,
    `Architecture ${JSON.stringify(d.architectures)} (model_type ${JSON.stringify(d.modelType)}), ${String(d.layers)} layers`,
    `Weights      ${d.tensors.length} tensors, ${formatBytes(d.totalBytes)} in ${d.shards.length} file(s): ${d.shards.join(', ')}`,
    `Side files   ${d.sideFiles.length > 0 ? d.sideFiles.join(', ') : '(none: no tokenizer or chat template)'}`,
    '',
  ];
  const rows = d.tensors.map((t) => [t.name, t.dtype, `[${t.shape.join(', ')}]`, t.shard, formatBytes(t.bytes)]);
  return summary.join('\n') + formatTable(['tensor', 'dtype', 'shape', 'shard', 'bytes'], rows);
}

function formatPairReport(report: PairReport): string {
  const lines = [
    `Instruct  ${report.instruct}`,
    `Thinking  ${report.thinking}`,
    report.base === undefined
      ? ''
      : `Base      ${report.base.dir}: ${report.base.matchedTensors} tensors match, ${report.base.missingTensors.length} missing, ${report.base.shapeMismatches.length} shape mismatches`,
    `Tensors   ${report.sharedTensors} shared, ${report.onlyInInstruct.length} only in Instruct, ${report.onlyInThinking.length} only in Thinking, ` +
      `${report.shapeMismatches.length} shape and ${report.dtypeMismatches.length} dtype mismatches`,
    `Protected ${report.tokens.special.length} lm_head rows kept at θ_I: ${formatIdRanges(report.tokens.special) || 'none'} (Instruct's added tokens but the think pair)`,
    `Think     rows ${formatIdRanges(report.tokens.think) || 'none'} (<think>/</think>: embedding and lm_head rows move by the think-row strength)`,
    '',
    ...report.findings.map((f) => `${f.severity.toUpperCase().padEnd(7)} ${f.message}`),
    report.findings.length === 0 ? 'The two checkpoints match in architecture, tensors and tokenizer.' : '',
    report.compatible ? 'Compatible: the pair can be edited with CRANE.' : 'NOT compatible: fix the errors above before editing.',
  ];
  // Empty lines are dropped but the one separating the summary from the findings (index 6).
  return lines.filter((l, i) => l !== '' || i === 6).join('\n');
}
