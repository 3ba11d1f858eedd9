/**
 * `crane analyze INSTRUCT THINKING --reasoning R --tool-use A --format F --out DIR`: the CRANE
 * analysis (engine/pipeline/run-analysis.ts) as resumable cached stages under DIR, with progress
 * bars on a terminal, a per-stage summary (or --json), --export for the open artifacts and
 * --export-reference for the reference pipeline's two files (pipeline/reference-run.ts).
 */
import { DEFAULT_SKETCH_PROBES, DENSE_CURVATURE_DIRECTIONS, defaultAnalysisSettings, type PipelineSettings } from '../pipeline/analysis-settings.ts';
import { exportOpenArtifacts } from '../pipeline/open-artifacts.ts';
import { exportReferenceRun } from '../pipeline/reference-run.ts';
import { formatDuration, ProgressPrinter } from '../pipeline/progress-text.ts';
import { CancelledError } from '../pipeline/progress.ts';
import { runAnalysis } from '../pipeline/run-analysis.ts';
import { ANALYSIS_STAGES } from '../protocol/common-schemas.ts';
import { initBackend } from '../tensor/backend.ts';
import { CHAT_TEMPLATE_FLAGS, chatTemplateHelp, chatTemplateOptionsFromFlags } from './chat-template-flags.ts';
import { parseCommandArgs, UsageError, type CliCommand } from './command.ts';
import { analysisEvaluationFromFlags, EVAL_FILE_FLAGS, evalFilesHelp } from './evaluation-flags.ts';
import { LONG_SEQUENCES_FLAG, longSequencePolicyFromFlag, longSequencesHelp } from './long-sequences-flag.ts';
import { applyMemoryBudgetFlag, MEMORY_BUDGET_FLAG, memoryBudgetHelp } from './memory-budget-flag.ts';

const HELP = `Usage: crane analyze INSTRUCT THINKING --reasoning R.jsonl --tool-use A.jsonl --format F.jsonl --out DIR [options]

Runs the CRANE analysis of an Instruct/Thinking pair into DIR: calibration targets (D_R answered
by Thinking, D_A by Instruct, greedy; given targets — a final assistant message — are used as
they are), GSP projectors from Instruct's activations at D_F's format positions, g_R and g_A at
θ_I layer by layer, then the gate table and the preview coefficients. Every stage is cached:
a rerun reuses what still matches its inputs and settings, recomputes what changed (and says
why), and resumes a cancelled (Ctrl-C) run where it stopped.

Calibration files are JSONL chats ({"messages": [...], "tools"?: [...]}, OpenAI-style).

Options:
  --out DIR                    analysis folder (created; reused on reruns)
  --export DIR                 also write the open artifacts there: gate-table.json, projectors.safetensors
                               (layer_{l}_attn_input / layer_{l}_ffn_input: .V and .sigma),
                               calibration-sequences.jsonl (ids, loss masks, format positions);
                               an existing DIR is replaced only if a previous --export wrote it
  --export-reference DIR       also write the analysis in the CRANE reference pipeline's formats:
                               phase2_stats.json (S per layer and component) and format_projectors.pt
                               (V_r, sigma), for its crane_merge.py --stats/--gsp; an existing DIR is
                               replaced only if a previous --export-reference wrote it
  --held-out F                 share of D_R and D_A kept out of the gradients for verify to measure
                               on (default 0: every example in the gradients, as the reference)
${evalFilesHelp(31)}
                               (neither: verify measures on the calibration sets themselves)
  --reasoning-max-new-tokens N token budget of decoded D_R targets (default 8192)
  --agent-max-new-tokens N     token budget of decoded D_A targets (default 2048)
  --max-tokens N               D_F traces are cut at N tokens (default 4096)
${longSequencesHelp(31)}
${chatTemplateHelp(31)}
${memoryBudgetHelp(31)}
  --pattern P                  a format pattern (repeatable; default the six Qwen delimiters)
  --radius N                   tokens around each pattern (default 3)
  --max-rank N                 GSP directions kept per projector (default 256)
  --rank-cut X                 keep σ_i > X·σ_1 (default 1e-5)
  --q Q                        keep quantile the preview coefficients are computed at (default 0.5)
  --batch N                    sequences per model pass (default 8; a gradient pass also holds at
                               most 1/8 of all tokens, so small sets still keep every worker busy)
  --workers N                  worker threads computing the gradients, one batch each (default: the CPU
                               cores, fewer when free memory is short, 1 for small work), scoring
                               the gates stage's layers, one layer each, and making the curvature
                               stage's backward passes, one pass each; the gradient files, gate table,
                               preview coefficients and curvature are bit-identical for any N
  --curvature-probes N         backward passes per set the curvature stage makes beyond its base pass
                               (at least 2): one per edit direction while they fit, else a sketch from
                               N probes, exact along the default edit (default: one per direction up to
                               ${DENSE_CURVATURE_DIRECTIONS} directions, else ${DEFAULT_SKETCH_PROBES} probes)
  --json                       machine-readable summary
  -h, --help`;

export const analyzeCommand: CliCommand = {
  name: 'analyze',
  summary: `run the CRANE analysis of a pair (${ANALYSIS_STAGES.join(', ')}), cached and resumable`,
  help: HELP,
  run: async (args, io) => {
    const { values, positionals } = parseCommandArgs(args, {
      reasoning: { type: 'string' }, 'tool-use': { type: 'string' }, format: { type: 'string' }, out: { type: 'string' }, export: { type: 'string' }, 'export-reference': { type: 'string' },
      'held-out': { type: 'string' }, 'reasoning-max-new-tokens': { type: 'string' }, 'agent-max-new-tokens': { type: 'string' },
      'max-tokens': { type: 'string' }, pattern: { type: 'string', multiple: true }, radius: { type: 'string' },
      'max-rank': { type: 'string' }, 'rank-cut': { type: 'string' }, q: { type: 'string' }, batch: { type: 'string' }, workers: { type: 'string' }, 'curvature-probes': { type: 'string' }, json: { type: 'boolean' },
      ...LONG_SEQUENCES_FLAG, ...EVAL_FILE_FLAGS, ...MEMORY_BUDGET_FLAG, ...CHAT_TEMPLATE_FLAGS,
    });
    if (positionals.length !== 2) throw new UsageError('expected the Instruct and Thinking checkpoint folders');
    const [instruct, thinking] = positionals as [string, string];
    const { reasoning, 'tool-use': agent, format, out } = values;
    if (reasoning === undefined || agent === undefined || format === undefined) throw new UsageError('--reasoning, --tool-use and --format are required');
    if (out === undefined) throw new UsageError('--out DIR is required');
    const settings = { ...settingsFromFlags(defaultAnalysisSettings({ reasoning, agent, format }), values), longSequences: longSequencePolicyFromFlag(values['long-sequences']) };
    applyMemoryBudgetFlag(values['memory-budget']);
    await initBackend();
    const bar = new ProgressPrinter(io.err);
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.once('SIGINT', onSigint);
    try {
      const run = await runAnalysis({
        instruct, thinking, outDir: out, settings, signal: controller.signal,
        ...(io.isTty ? { onProgress: (e) => bar.progress(e) } : {}),
        onStageDone: (e) => bar.stageDone(e),
        onLog: (message) => io.err(message),
      });
      const exported = values.export === undefined ? null : await exportOpenArtifacts(run.dir, values.export, { overwrite: true });
      const reference = values['export-reference'];
      const referenceFiles = reference === undefined ? null : await exportReferenceRun(run.dir, reference, { overwrite: true });
      if (values.json === true) {
        const exportReference = referenceFiles === null ? null : { dir: reference, files: referenceFiles };
        io.out(JSON.stringify({ dir: run.dir, result: run.resultDir, seconds: run.seconds, stages: run.stages, export: exported === null ? null : { dir: values.export, files: exported }, exportReference }));
      } else {
        io.out(`analysis in ${run.dir} (${formatDuration(run.seconds)}): ${run.artifacts.gate.scores.size} gate blocks, ${run.artifacts.projectors.size} projectors, ${run.artifacts.coefficients.entries.length} preview entries`);
        if (exported !== null) io.out(`open artifacts in ${values.export}: ${exported.join(', ')}`);
        if (referenceFiles !== null) io.out(`reference-pipeline files in ${reference}: ${referenceFiles.join(', ')}`);
      }
      return 0;
    } catch (error) {
      if (!(error instanceof CancelledError)) throw error;
      io.err(`crane analyze: ${error.message}`);
      return 130;
    } finally {
      process.off('SIGINT', onSigint);
    }
  },
};

type Flags = Partial<Record<'held-out' | 'eval-reasoning' | 'eval-tool-use' | 'reasoning-max-new-tokens' | 'agent-max-new-tokens' | 'max-tokens' | 'radius' | 'max-rank' | 'rank-cut' | 'q' | 'batch' | 'workers' | 'curvature-probes' | keyof typeof CHAT_TEMPLATE_FLAGS, string>> & { pattern?: string[] };

function settingsFromFlags(defaults: PipelineSettings, v: Flags): PipelineSettings {
  const a = defaults.analysis;
  const int = (text: string | undefined, flag: string, fallback: number, min: number) => {
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} must be an integer ≥ ${min}, got "${text}"`);
    return n;
  };
  const real = (text: string | undefined, flag: string, fallback: number, ok: (x: number) => boolean) => {
    const x = text === undefined ? fallback : Number(text);
    if (!Number.isFinite(x) || !ok(x)) throw new UsageError(`${flag} got an invalid value "${text}"`);
    return x;
  };
  return {
    keepQuantile: real(v.q, '--q', defaults.keepQuantile, (x) => x >= 0 && x < 1),
    batchSequences: int(v.batch, '--batch', defaults.batchSequences, 1),
    ...(v.workers === undefined ? {} : { workers: int(v.workers, '--workers', 1, 1) }),
    ...(v['curvature-probes'] === undefined ? {} : { curvatureProbes: int(v['curvature-probes'], '--curvature-probes', DEFAULT_SKETCH_PROBES, 2) }),
    analysis: {
      ...a,
      evaluation: analysisEvaluationFromFlags(v),
      chatTemplate: chatTemplateOptionsFromFlags(v),
      reasoningMaxNewTokens: int(v['reasoning-max-new-tokens'], '--reasoning-max-new-tokens', a.reasoningMaxNewTokens, 1),
      agentMaxNewTokens: int(v['agent-max-new-tokens'], '--agent-max-new-tokens', a.agentMaxNewTokens, 1),
      gsp: {
        maxRank: int(v['max-rank'], '--max-rank', a.gsp.maxRank, 1),
        rankCut: real(v['rank-cut'], '--rank-cut', a.gsp.rankCut, (x) => x > 0 && x < 1),
        radius: int(v.radius, '--radius', a.gsp.radius, 0),
        maxTokens: int(v['max-tokens'], '--max-tokens', a.gsp.maxTokens, 1),
        formatPatterns: v.pattern ?? a.gsp.formatPatterns,
      },
    },
  };
}
