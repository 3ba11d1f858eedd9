/**
 * How many MoE routing decisions CRANE's edit changes, per α — the part of the loss a Taylor
 * model in the weights cannot follow (which experts a token uses is a step function of them).
 *
 * On the analysis' train calibration sequences (the ones the preview's gradients and curvature
 * come from), at the loss-target positions of the reasoning and tool-use sets: the share of
 * (token, layer) whose top-k experts differ from Instruct's, for the edit at the default settings,
 * and for the same edit with the routers kept at θ_I (routerAlphaFraction 0), which separates the
 * router's own edit from the shift of the hidden states that feed it.
 * Default --analysis: the MoE pair's alpha-sweep cache (run `alpha-sweep.ts --pair moe` first).
 */
import { formatTable } from '../../engine/cli/format.ts';
import { Checkpoint } from '../../engine/io/checkpoint.ts';
import { loadCausalLM } from '../../engine/model/causal-lm.ts';
import { captureRouting } from '../../engine/model/router-capture.ts';
import type { WeightSource } from '../../engine/model/weights.ts';
import { readSequences, type CalibrationSequence } from '../../engine/pipeline/calibration-sequences.ts';
import { editTokenRows } from '../../engine/pipeline/checkpoint-tokenizer.ts';
import { editFor } from '../../engine/pipeline/edit-method.ts';
import { editedWeightSource } from '../../engine/pipeline/edited-source.ts';
import { loadPipelineAnalysis, pipelinePaths } from '../../engine/pipeline/pipeline-folder.ts';
import { defaultResolvedSettings } from '../../engine/protocol/settings-defaults.ts';
import { initBackend } from '../../engine/tensor/backend.ts';
import { parseCli } from '../cli-args.ts';
import { demoAnalysisDir } from './demo-analysis.ts';

const { values: args } = parseCli({
  usage: ['node --import tsx tools/demo/alpha-sweep-routing.ts [--analysis DIR] [--alphas 0.05,0.1,0.25,0.5,1]'],
  options: {
    analysis: { type: 'string', value: 'DIR', default: demoAnalysisDir('moe'), help: "a finished analysis of an MoE pair; the default is the MoE pair's alpha-sweep cache (run alpha-sweep.ts --pair moe first)" },
    alphas: { type: 'string', value: 'LIST', default: '0.05,0.1,0.25,0.5,1', help: 'the α values, comma-separated' },
  },
});

/** Per set, each (sequence, layer) → the sorted top-k expert ids at every loss-target position. */
type Routes = Map<string, Map<string, string[]>>;

async function routes(weights: WeightSource, sequences: readonly CalibrationSequence[]): Promise<Routes> {
  const model = loadCausalLM(weights);
  const out: Routes = new Map();
  for (const set of ['reasoning', 'agent'] as const) {
    const batch = sequences.filter((s) => s.set === set);
    const perSet = new Map<string, string[]>();
    await captureRouting(model.context, batch.map((s) => s.ids), ({ layer, sequence, routing }) => {
      const mask = (batch[sequence] as CalibrationSequence).lossMask ?? [];
      const k = routing.expertsPerToken;
      const chosen = mask.flatMap((m, t) => (m === 1 ? [Array.from(routing.experts.subarray(t * k, (t + 1) * k)).sort((a, b) => a - b).join(',')] : []));
      perSet.set(`${sequence}@${layer}`, chosen);
    });
    out.set(set, perSet);
  }
  return out;
}

/** Share of (position, layer) whose top-k set differs from the base's. */
function changed(base: Routes, edited: Routes, set: string): number {
  let differ = 0;
  let total = 0;
  for (const [key, sets] of base.get(set) ?? []) {
    const other = edited.get(set)?.get(key) ?? [];
    sets.forEach((s, i) => { total++; if (other[i] !== s) differ++; });
  }
  return total === 0 ? Number.NaN : differ / total;
}

await initBackend();
const { record, artifacts } = await loadPipelineAnalysis(args.analysis);
const sequences = (await readSequences(pipelinePaths(args.analysis).sequences)).filter((s) => s.split === 'train' && (s.set === 'reasoning' || s.set === 'agent'));
const instruct = await Checkpoint.open(record.instruct);
const thinking = await Checkpoint.open(record.thinking);
try {
  if (loadCausalLM(instruct).spec.moe === undefined) throw new Error(`${record.instruct} is not a sparse MoE model: no routing to compare`);
  const defaults = defaultResolvedSettings(await editTokenRows(record.instruct, () => undefined));
  const context = { gate: artifacts.gate, projector: (key: string) => artifacts.projectors.get(key) };
  const base = await routes(instruct, sequences);
  const rows: string[][] = [];
  const percent = (x: number) => `${(100 * x).toFixed(1)}%`;
  for (const alpha of args.alphas.split(',').map(Number)) {
    const at = async (routerAlphaFraction: number) => {
      const settings = { ...defaults, alpha, special: { ...defaults.special, routerAlphaFraction } };
      return routes(editedWeightSource(instruct, thinking, editFor({ method: 'crane', settings }, context)), sequences);
    };
    const [edited, routersKept] = [await at(defaults.special.routerAlphaFraction), await at(0)];
    rows.push([String(alpha), ...['reasoning', 'agent'].flatMap((set) => [percent(changed(base, edited, set)), percent(changed(base, routersKept, set))])]);
    process.stdout.write(`α ${alpha} done\n`);
  }
  process.stdout.write(`\ntop-k expert sets changed vs Instruct, (token, layer) at the loss targets of the train calibration sequences (${args.analysis}):\n`);
  process.stdout.write(`${formatTable(['α', 'D_R edit', 'D_R routers kept', 'D_A edit', 'D_A routers kept'], rows)}\n`);
} finally {
  await instruct.close();
  await thinking.close();
}
