/**
 * `crane import-reference --stats phase2_stats.json --projectors format_projectors.pt
 * [--projectors-linattn F] --out DIR`: a run of the CRANE reference pipeline as a studio analysis
 * folder (pipeline/reference-run.ts) that `crane merge --analysis DIR`, `crane verify` and the
 * studio read like one of their own.
 */
import { importReferenceRun } from '../pipeline/reference-run.ts';
import { parseCommandArgs, UsageError, type CliCommand } from './command.ts';

const HELP = `Usage: crane import-reference --stats phase2_stats.json --projectors format_projectors.pt [--projectors-linattn F] --out DIR

Converts the artifacts of a CRANE reference-pipeline run (github.com/rpi-nsl/CRANE) into a studio
analysis folder: S per layer and component from phase2_stats.json (crane_s_reason_auto.py) and the
GSP projectors from format_projectors.pt (crane_gsp.py). Pass DIR to crane merge/verify --analysis
to tune α, τ, k, the stages and overrides and export; the studio's "Open reference run" does the
same for a project. A reference run carries no gradients, so the instant preview is not available
on it (verify measures the real losses). The .pt files are read as data, never executed.

Options:
  --stats F                 phase2_stats.json (per_layer_S_reason, per_component_S_reason, metadata)
  --projectors F            format_projectors.pt ({layer_{l}_attn_input|ffn_input: {V_r, sigma}})
  --projectors-linattn F    format_projectors_linattn_inner.pt (Qwen3-Next: projects linear_attn.out_proj)
  --out DIR                 the analysis folder to write (must not exist unless --overwrite)
  --overwrite               replace DIR (only an analysis folder) once the new analysis is complete
  --json                    machine-readable summary
  -h, --help`;

export const importReferenceCommand: CliCommand = {
  name: 'import-reference',
  summary: 'turn a CRANE reference-pipeline run (phase2_stats.json, format_projectors.pt) into an analysis folder',
  help: HELP,
  run: async (args, io) => {
    const { values, positionals } = parseCommandArgs(args, {
      stats: { type: 'string' }, projectors: { type: 'string' }, 'projectors-linattn': { type: 'string' }, out: { type: 'string' },
      overwrite: { type: 'boolean' }, json: { type: 'boolean' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
    const { stats, projectors, out } = values;
    if (stats === undefined || projectors === undefined) throw new UsageError('--stats and --projectors are required');
    if (out === undefined) throw new UsageError('--out DIR is required');
    const files = { stats, projectors, projectorsLinattn: values['projectors-linattn'] };
    await importReferenceRun(files, out, { overwrite: values.overwrite === true });
    if (values.json === true) io.out(JSON.stringify({ dir: out, ...files }));
    else io.out(`analysis in ${out}: use it with crane merge --analysis ${out} (the preview needs gradients, which a reference run does not carry)`);
    return 0;
  },
};
