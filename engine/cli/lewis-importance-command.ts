/**
 * `crane lewis-importance MODEL --analysis DIR --out FILE.json`: the per-Linear importance file
 * LEWIS schedules from, measured on the runtime as the reference's lewis_importance.py
 * (pipeline/lewis-importance-measure.ts) on the analysis' calibration prompts. Run it on Instruct
 * for --importance-base and on Thinking for --importance-tuned.
 */
import { writeLewisImportance } from '../crane/lewis-importance-file.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { aimPrompts } from '../pipeline/aim-importance.ts';
import { readSequences } from '../pipeline/calibration-sequences.ts';
import { measureLewisImportance } from '../pipeline/lewis-importance-measure.ts';
import { pipelinePaths } from '../pipeline/pipeline-folder.ts';

import { initBackend } from '../tensor/backend.ts';
import { parseCommandArgs, UsageError, type CliCommand } from './command.ts';

const HELP = `Usage: crane lewis-importance MODEL --analysis DIR --out FILE.json [--batch N]

Measures LEWIS's importance of every transformer-block Linear of the checkpoint MODEL, as the
reference's lewis_importance.py: sqrt(Σ W_ij² · E[x_j²]) with E over every token of the analysis'
D_R + D_A train prompts (each up to its first generated token, cut at 512 tokens: the prompts AIM
reads). Writes a JSON object module name → importance, which crane verify --method lewis reads
(--importance-base for Instruct, --importance-tuned for Thinking). The prompts are the analysis'
token ids (Instruct's tokenizer), so both models must share the tokenizer, as Qwen's pairs do.

Options:
  --analysis DIR   analysis folder whose calibration sequences give the prompts
  --out FILE.json  where to write the importance file (replaced atomically)
  --batch N        prompts per forward pass (default 8)
  -h, --help`;

export const lewisImportanceCommand: CliCommand = {
  name: 'lewis-importance',
  summary: 'LEWIS per-Linear importance of one checkpoint on an analysis\' prompts (for verify --method lewis)',
  help: HELP,
  run: async (args, io) => {
    const { values, positionals } = parseCommandArgs(args, { analysis: { type: 'string' }, out: { type: 'string' }, batch: { type: 'string', default: '8' } });
    if (positionals.length !== 1) throw new UsageError('expected one checkpoint folder');
    if (values.analysis === undefined || values.out === undefined) throw new UsageError('--analysis DIR and --out FILE.json are required');
    const batch = Number(values.batch);
    if (!(Number.isInteger(batch) && batch >= 1)) throw new UsageError(`--batch must be a whole number ≥ 1, got "${values.batch}"`);
    const prompts = aimPrompts(await readSequences(pipelinePaths(values.analysis).sequences));
    if (prompts.length === 0) throw new UsageError(`${values.analysis} has no D_R or D_A train prompt to measure on`);
    await initBackend();
    const checkpoint = await Checkpoint.open(positionals[0] as string);
    try {
      const importance = await measureLewisImportance(loadCausalLM(checkpoint), prompts, { batch });
      await writeLewisImportance(values.out, importance);
      io.out(`LEWIS importance of ${importance.size} Linear layers on ${prompts.length} prompts → ${values.out}\n`);
    } finally {
      await checkpoint.close();
    }
    return 0;
  },
};
