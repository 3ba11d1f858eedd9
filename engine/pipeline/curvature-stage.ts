/**
 * Stage `curvature`: what the preview needs beyond the layers' first order, measured once per
 * analysis on the gradients' sequences (the train split of D_R and D_A).
 *
 *   curvatureKey(ctx) → StageKey
 *   runCurvature(ctx, artifacts, clock) → stages/curvature/curvature.json (analysis/preview-curvature.ts)
 *   loadCurvature(analysisDir, record) → PreviewCurvature | undefined   only when its marker matches
 *
 * Directions Δ_b: crane/edit-directions.ts at the default q, τ, k and toggles. Per loss K:
 *   g_K·Δ_b        from one backward pass at θ_I (head gradients included);
 *   Δ_bᵀH_KΔ_b'   ≈ (∇L_K(θ_I + ε_bΔ_b) − ∇L_K(θ_I))·Δ_b' / ε_b, then symmetrised.
 * One extra backward pass per direction and set (B+1 in all): the demo pair's 14 directions
 * cost ~15 of its gradient stages. The step ε_b is the direction's coefficient at the default
 * settings (floored at EPSILON_FLOOR): a secant over the range the preview is mostly asked
 * about, and for the α-independent think rows exactly the trapezoid rule of the line integral
 * to the default edit. A model with hundreds of blocks pays hundreds of passes: this stage is
 * sized for the small pairs the runtime trains and edits here, not for a 30B pair.
 * Routers (MoE): no direction (SLERP is not c·Δ); the base pass also dots g_K with each router's
 * θ_I and θ_T, which with θ_I·θ_T, ‖θ_I‖², ‖θ_T‖² gives the preview their SLERP's first order
 * at any α (analysis/preview-router.ts). They are not in the curvature matrix.
 * Anchors: the default edit at α ∈ ANCHOR_ALPHAS built and measured (forward passes only), so
 * the preview can say where its model agrees with measurement (analysis/preview-range.ts).
 * Resumable: each finished pass is kept in passes.json; a rerun with the same key starts after it.
 */
import { join } from 'node:path';
import { z } from 'zod';
import type { AnalysisArtifacts } from '../analysis/analysis-store.ts';
import { factorDense } from '../analysis/curvature-operator.ts';
import { CURVATURE_FILE, readCurvatureFile, writeCurvatureFile, type PreviewCurvature } from '../analysis/preview-curvature.ts';
import { editDirections, type EditDirection } from '../crane/edit-directions.ts';
import { resolveScale } from '../crane/gate-scales.ts';
import { classifyTensor, type LayerGroup, type TensorClass } from '../crane/tensor-classification.ts';
import { writeFileAtomic } from '../io/atomic-file.ts';
import { readJsonFile } from '../io/json-file.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import type { WeightSource } from '../model/weights.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { lossBatch, readSequences } from './calibration-sequences.ts';
import { editTokenRows } from './checkpoint-tokenizer.ts';
import { DirectionalGradients, type DirectionalPass } from './directional-gradients.ts';
import { editFor } from './edit-method.ts';
import { editedWeightSource } from './edited-source.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { pipelinePaths, resultKey, type PipelineRecord } from './pipeline-folder.ts';
import { throwIfCancelled, type StageClock } from './progress.ts';
import { stageStatus, type StageKey } from './stage-store.ts';

export const ANCHOR_ALPHAS = [0.25, 1] as const;
/** Up to this many directions the file holds M dense; beyond, its LOW_RANK eigenpairs of largest |λ| (preview speed, file size). */
const DENSE_DIRECTIONS_MAX = 256;
const LOW_RANK = 64;
const EPSILON_FLOOR = 0.05;
// version 2: the default edit is taken at the analysed q (version 1 took the default q); 3: router products.
const ESTIMATOR = { version: 3, method: 'forward-difference-gradients', epsilonFloor: EPSILON_FLOOR, anchors: ANCHOR_ALPHAS } as const;
const SETS = ['reasoning', 'agent'] as const;
const PASSES_FILE = 'passes.json';

const passesSchema = z.record(z.string(), z.strictObject({ loss: z.number(), dots: z.array(z.number()) }));

export function curvatureKey(ctx: Pick<PipelineContext, 'inputs' | 'settings'>): StageKey {
  return { result: resultKey(ctx.inputs, ctx.settings), estimator: ESTIMATOR };
}

export async function runCurvature(ctx: PipelineContext, artifacts: AnalysisArtifacts, clock: StageClock): Promise<void> {
  const tokens = await editTokenRows(ctx.instruct.dir, (message) => ctx.callbacks.onLog?.(message));
  // The default edit at the analysed q: the preview's coefficients (gates stage) bake T(δ) in at that q,
  // and the anchors are predicted through them.
  const defaults = { ...defaultResolvedSettings(tokens), keepQuantile: ctx.settings.keepQuantile };
  const context = { gate: artifacts.gate, projector: (key: string) => artifacts.projectors.get(key) };
  const basis = editDirections(ctx.instruct.tensors.keys(), defaults, tokens, context);
  const epsilon = basis.directions.map((d) => Math.max(EPSILON_FLOOR, defaultCoefficient(d, defaults, artifacts)));
  const sequences = await readSequences(ctx.paths.sequences);
  const batches = { reasoning: lossBatch(sequences, 'reasoning', 'train'), agent: lossBatch(sequences, 'agent', 'train') };
  const done = await PassLog.open(join(ctx.paths.curvature, PASSES_FILE));
  const routerNames = editedRouters(ctx);
  const along = new DirectionalGradients(ctx.instruct, ctx.thinking, basis, routerNames);
  const B = basis.directions.length;
  const total = SETS.length * (B + 1) + SETS.length * (ANCHOR_ALPHAS.length + 1) / 3; // a forward pass ≈ a third of a backward one
  let finished = 0;
  const step = (message: string, weight = 1) => clock.report((finished += weight) / total, message);

  const firstOrder = { reasoning: [] as number[], agent: [] as number[] };
  const hessian = { reasoning: [] as number[], agent: [] as number[] };
  const routerDots: Record<(typeof SETS)[number], Float64Array> = { reasoning: new Float64Array(), agent: new Float64Array() };
  for (const set of SETS) {
    const pass = (name: string, weights: WeightSource) => done.run(`${set}:${name}`, () => along.pass(weights, batches[set], ctx.settings.batchSequences, ctx.callbacks.signal));
    const base = await pass('base', ctx.instruct);
    step(`g_${set === 'reasoning' ? 'R' : 'A'}·Δ at θ_I`);
    const rows: Float64Array[] = [];
    for (let b = 0; b < B; b++) {
      const moved = await pass(`${b}`, editedWeightSource(ctx.instruct, ctx.thinking, basis.edit(b, epsilon[b] as number)));
      rows.push(moved.dots.subarray(0, B).map((d, j) => (d - (base.dots[j] as number)) / (epsilon[b] as number)));
      step(`H_${set === 'reasoning' ? 'R' : 'A'}·Δ ${b + 1}/${B} (${(basis.directions[b] as EditDirection).key})`);
    }
    firstOrder[set] = Array.from(base.dots.subarray(0, B));
    routerDots[set] = base.dots.subarray(B);
    hessian[set] = symmetrised(rows);
  }

  const anchors = [];
  const baseLoss = { reasoning: await meanLoss(ctx.instruct, batches.reasoning, ctx), agent: await meanLoss(ctx.instruct, batches.agent, ctx) };
  step('losses at θ_I', 2 / 3);
  for (const alpha of ANCHOR_ALPHAS) {
    const edited = editedWeightSource(ctx.instruct, ctx.thinking, editFor({ method: 'crane', settings: { ...defaults, alpha } }, context));
    const measured = { reasoning: await meanLoss(edited, batches.reasoning, ctx) - baseLoss.reasoning, agent: await meanLoss(edited, batches.agent, ctx) - baseLoss.agent };
    anchors.push({ alpha, measured });
    step(`measured the default edit at α ${alpha}`, 2 / 3);
  }
  const curvature: PreviewCurvature = {
    basis: { keepQuantile: defaults.keepQuantile, tau: defaults.tau, steepness: defaults.steepness, threshold: defaults.stages.threshold, gsp: defaults.stages.gsp },
    anchorSpecial: { thinkRows: defaults.special.thinkRows, lmHeadScale: defaults.special.lmHeadScale, routerAlphaFraction: defaults.special.routerAlphaFraction },
    directions: basis.directions,
    epsilon,
    firstOrder,
    ...(B <= DENSE_DIRECTIONS_MAX ? { hessian } : { lowRank: { reasoning: factorDense(hessian.reasoning, B, LOW_RANK), agent: factorDense(hessian.agent, B, LOW_RANK) } }),
    routers: await routerTerms(ctx, routerNames, routerDots),
    anchors,
    split: 'train',
  };
  await writeCurvatureFile(join(ctx.paths.curvature, CURVATURE_FILE), curvature);
}

/** The stage's result when its marker matches this analysis (a stale or unfinished stage reads as absent). */
export async function loadCurvature(analysisDir: string, record: Pick<PipelineRecord, 'inputs' | 'settings'>): Promise<PreviewCurvature | undefined> {
  const dir = pipelinePaths(analysisDir).curvature;
  if ((await stageStatus(dir, curvatureKey(record))).state !== 'cached') return undefined;
  return readCurvatureFile(join(dir, CURVATURE_FILE));
}

/** The routers the edit SLERPs: on both sides with one shape (otherwise editPair keeps θ_I). */
function editedRouters(ctx: PipelineContext): string[] {
  return [...ctx.instruct.tensors.keys()].filter((name) => {
    const side = ctx.thinking.tensors.get(name);
    return classifyTensor(name).rule === 'router' && side !== undefined && side.shape.join('x') === ctx.instruct.tensor(name).shape.join('x');
  });
}

/** Each router's products and its base-pass dots (g·θ_I, g·θ_T per router, in `names` order). */
async function routerTerms(ctx: PipelineContext, names: readonly string[], dots: Record<(typeof SETS)[number], Float64Array>): Promise<PreviewCurvature['routers']> {
  const terms: PreviewCurvature['routers'] = [];
  for (const [i, name] of names.entries()) {
    const thetaI = await ctx.instruct.readFloat32(name);
    const thetaT = await ctx.thinking.readFloat32(name);
    let dot = 0, normI = 0, normT = 0;
    for (let j = 0; j < thetaI.length; j++) {
      const a = thetaI[j] as number;
      const b = thetaT[j] as number;
      dot += a * b;
      normI += a * a;
      normT += b * b;
    }
    const at = (set: (typeof SETS)[number], k: number) => dots[set][2 * i + k] ?? 0;
    terms.push({
      name,
      shape: [...ctx.instruct.tensor(name).shape],
      products: { dot, normI, normT },
      gradThetaI: { reasoning: at('reasoning', 0), agent: at('agent', 0) },
      gradThetaT: { reasoning: at('reasoning', 1), agent: at('agent', 1) },
    });
  }
  return terms;
}

/** c_b at the default settings: what the edit the user starts from does along Δ_b. */
function defaultCoefficient(direction: EditDirection, defaults: ResolvedCraneSettings, artifacts: AnalysisArtifacts): number {
  switch (direction.coefficient) {
    case 'think-rows': return defaults.special.thinkRows;
    case 'lm-head-scale': return defaults.special.lmHeadScale;
    case 'alpha-scale': {
      const tensor = direction.group === 'final_norm' ? classifyTensor('model.norm.weight') : blockClass(direction.key);
      return defaults.alpha * resolveScale(tensor, artifacts.gate, defaults).value;
    }
  }
}

/** A stand-in tensor of coarse block `group@layer`: resolveScale reads only group, block and layer. */
function blockClass(key: string): TensorClass {
  const [group, layer] = key.split('@') as [LayerGroup, string];
  return { name: key, layer: Number(layer), group, block: group, expert: null, gspKey: null, rule: 'crane' };
}

/** (M + Mᵀ)/2, row-major: the two one-sided estimates of Δ_bᵀHΔ_b' averaged. */
function symmetrised(rows: readonly Float64Array[]): number[] {
  const size = rows.length;
  const out: number[] = [];
  for (let i = 0; i < size; i++) for (let j = 0; j < size; j++) out.push(((rows[i]?.[j] ?? 0) + (rows[j]?.[i] ?? 0)) / 2);
  return out;
}

async function meanLoss(weights: WeightSource, batch: readonly LossSequence[], ctx: PipelineContext): Promise<number> {
  const model = loadCausalLM(weights);
  let sum = 0;
  for (let start = 0; start < batch.length; start += ctx.settings.batchSequences) {
    throwIfCancelled(ctx.callbacks.signal, 'curvature');
    for (const score of await model.sequenceLosses(batch.slice(start, start + ctx.settings.batchSequences))) sum += score.loss;
  }
  return sum / batch.length;
}

/** Finished passes on disk, so a cancelled stage resumes after the last one. */
class PassLog {
  private constructor(private readonly path: string, private readonly passes: Record<string, { loss: number; dots: number[] }>) {}

  static async open(path: string): Promise<PassLog> {
    return new PassLog(path, (await readJsonFile(path, passesSchema, 'a curvature pass log')) ?? {});
  }

  async run(name: string, work: () => Promise<DirectionalPass>): Promise<DirectionalPass> {
    const kept = this.passes[name];
    if (kept !== undefined) return { loss: kept.loss, dots: Float64Array.from(kept.dots) };
    const result = await work();
    this.passes[name] = { loss: result.loss, dots: Array.from(result.dots) };
    await writeFileAtomic(this.path, JSON.stringify(this.passes));
    return result;
  }
}

