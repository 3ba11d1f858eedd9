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
 *   M·w            ≈ Δᵀ(∇L_K(θ_I + Σ_b w_bΔ_b) − ∇L_K(θ_I)), one backward pass per probe w.
 * Dense (B ≤ the probe budget `curvatureProbes`; without one, B ≤ 16): one probe per direction,
 * w = ε_b·e_b, so row b of M is that difference / ε_b, then symmetrised — B+1 passes per set;
 * the built-in demo pairs (B ≤ 14) are measured this way. The step ε_b is the direction's
 * coefficient at the default settings (floored at EPSILON_FLOOR): a secant over the range the
 * preview is mostly asked about, and for the α-independent think rows exactly the trapezoid rule
 * of the line integral to the default edit.
 * Sketched (B > the budget): `budget` probes (without one, 2), each the default edit restricted
 * to a cell of directions (curvature-probes.ts, analysis/curvature-sketch.ts) — the α-free part
 * and the α part of the default edit first, then special tensors, layer groups and layer ranges
 * apart — and M̃ = PM + MP − PMP on their span, stored in the low-rank form with the span. What
 * is approximated: M is exact (to the same finite differences) for any c in the probes' span,
 * which holds the default edit at every α and any setting that scales whole cells; off the span
 * the curvature between the parts no probe moved is left out (the preview's error bound says ∞
 * there). A 28-layer Qwen3 (B = 88) costs 3 passes per set by default instead of 89.
 * Each probe pass edits only the tensors its steps move, with the Δ_b the dots use
 * (directional-gradients.ts); cancellation is checked per layer and per weight read.
 * Routers (MoE): no direction (SLERP is not c·Δ); the base pass also dots g_K with each router's
 * θ_I and θ_T, which with θ_I·θ_T, ‖θ_I‖², ‖θ_T‖² gives the preview their SLERP's first order
 * at any α (analysis/preview-router.ts). They are not in the curvature matrix.
 * Anchors: the default edit at α ∈ ANCHOR_ALPHAS built and measured (forward passes only), so
 * the preview can say where its model agrees with measurement (analysis/preview-range.ts): one
 * forward per α over both sets' sequences (curvature-anchors.ts), θ_I's losses taken from the
 * base passes when all are done.
 * The passes, anchors included, are independent: with --workers above 1 (or, by default, the
 * cores the memory fits) they run on worker threads, one pass per thread at a time, with
 * bit-identical results (curvature-passes.ts, curvature-workers.ts).
 * Resumable: each finished pass is kept in passes.json; a rerun with the same key runs only the others.
 */
import { join } from 'node:path';
import type { AnalysisArtifacts } from '../analysis/analysis-store.ts';
import { factorDense } from '../analysis/curvature-operator.ts';
import { sketchedCurvature } from '../analysis/curvature-sketch.ts';
import { CURVATURE_FILE, readCurvatureFile, writeCurvatureFile, type PreviewCurvature } from '../analysis/preview-curvature.ts';
import { editDirections, type EditDirection } from '../crane/edit-directions.ts';
import { resolveScale } from '../crane/gate-scales.ts';
import { classifyTensor, type LayerGroup, type TensorClass } from '../crane/tensor-classification.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { lossBatch, readSequences } from './calibration-sequences.ts';
import { editTokenRows } from './checkpoint-tokenizer.ts';
import { measuredAnchor } from './curvature-anchors.ts';
import { anchorName, CALIBRATION_SETS, curvaturePasses, FORWARD_SHARE, type CalibrationSet } from './curvature-passes.ts';
import { curvatureProbes, EPSILON_FLOOR } from './curvature-probes.ts';
import type { DirectionalPass } from './directional-gradients.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { pipelinePaths, type PipelineRecord } from './pipeline-folder.ts';
import type { StageClock } from './progress.ts';
import { sumsKey } from './stage-keys.ts';
import { stageStatus, type StageKey } from './stage-store.ts';

export const ANCHOR_ALPHAS = [0.25, 1] as const;
/** Up to this many directions the file holds M dense; beyond, its LOW_RANK eigenpairs of largest |λ| (preview speed, file size). */
const DENSE_DIRECTIONS_MAX = 256;
const LOW_RANK = 64;
// version 2: the default edit is taken at the analysed q (version 1 took the default q); 3: router products.
const ESTIMATOR = { version: 3, method: 'forward-difference-gradients', epsilonFloor: EPSILON_FLOOR, anchors: ANCHOR_ALPHAS } as const;

/**
 * The gradient sums' key (the gates' result read here and the split the passes batch by, stage-keys.ts);
 * a given probe budget is part of the key (another budget is another result), none keeps the key results were made under.
 */
export function curvatureKey(ctx: Pick<PipelineContext, 'inputs' | 'settings'>): StageKey {
  const budget = ctx.settings.curvatureProbes;
  return { ...sumsKey(ctx.inputs, ctx.settings), estimator: budget === undefined ? ESTIMATOR : { ...ESTIMATOR, probes: budget } };
}

export async function runCurvature(ctx: PipelineContext, artifacts: AnalysisArtifacts, clock: StageClock): Promise<void> {
  const tokens = await editTokenRows(ctx.instruct.dir, (message) => ctx.callbacks.onLog?.(message));
  // The default edit at the analysed q: the preview's coefficients (gates stage) bake T(δ) in at that q,
  // and the anchors are predicted through them.
  const defaults = { ...defaultResolvedSettings(tokens), keepQuantile: ctx.settings.keepQuantile };
  const context = { gate: artifacts.gate, projector: (key: string) => artifacts.projectors.get(key) };
  const basis = editDirections(ctx.instruct.tensors.keys(), defaults, tokens, context);
  const coefficients = basis.directions.map((d) => defaultCoefficient(d, defaults, artifacts));
  const epsilon = coefficients.map((c) => Math.max(EPSILON_FLOOR, c));
  const B = basis.directions.length;
  const plan = curvatureProbes(basis.directions, coefficients, ctx.settings.curvatureProbes);
  const sequences = await readSequences(ctx.paths.sequences);
  const batches = { reasoning: lossBatch(sequences, 'reasoning', 'train'), agent: lossBatch(sequences, 'agent', 'train') };
  const routerNames = editedRouters(ctx);
  const total = CALIBRATION_SETS.length * (plan.probes.length + 1) + ANCHOR_ALPHAS.length * CALIBRATION_SETS.length * FORWARD_SHARE;
  let finished = 0;
  const step = (message: string, weight = 1) => clock.report((finished += weight) / total, message);
  const anchorEdit = { defaults, gate: artifacts.gate, projectors: artifacts.projectors };
  const passes = await curvaturePasses(ctx, { basis, ...plan, batches, routers: routerNames, anchors: { alphas: ANCHOR_ALPHAS, edit: anchorEdit } }, step);
  const result = (set: CalibrationSet, name: string) => passes.get(`${set}:${name}`) as DirectionalPass;
  const firstOrder = { reasoning: [] as number[], agent: [] as number[] };
  const columns: Record<CalibrationSet, Float64Array[]> = { reasoning: [], agent: [] };
  const routerDots: Record<CalibrationSet, Float64Array> = { reasoning: new Float64Array(), agent: new Float64Array() };
  const atInstruct: Record<CalibrationSet, readonly number[]> = { reasoning: [], agent: [] };
  for (const set of CALIBRATION_SETS) {
    const base = result(set, 'base');
    for (const probe of plan.probes) columns[set].push(result(set, probe.name).dots.subarray(0, B).map((d, b) => d - (base.dots[b] as number)));
    firstOrder[set] = Array.from(base.dots.subarray(0, B));
    routerDots[set] = base.dots.subarray(B);
    atInstruct[set] = base.sequenceLosses;
  }
  const anchors = ANCHOR_ALPHAS.map((alpha) => measuredAnchor(alpha, passes.get(anchorName(alpha)) as DirectionalPass, batches.reasoning.length, atInstruct));
  const curvature: PreviewCurvature = {
    basis: { keepQuantile: defaults.keepQuantile, tau: defaults.tau, steepness: defaults.steepness, threshold: defaults.stages.threshold, gsp: defaults.stages.gsp },
    anchorSpecial: { thinkRows: defaults.special.thinkRows, lmHeadScale: defaults.special.lmHeadScale, routerAlphaFraction: defaults.special.routerAlphaFraction },
    directions: basis.directions,
    epsilon,
    firstOrder,
    ...curvatureMatrices(plan, columns, epsilon),
    routers: await routerTerms(ctx, routerNames, routerDots),
    anchors,
    split: 'train',
  };
  await writeCurvatureFile(join(ctx.paths.curvature, CURVATURE_FILE), curvature);
}

/** M per loss from the probes' columns: dense (rows / ε_b, symmetrised; low-rank beyond DENSE_DIRECTIONS_MAX) or sketched. */
function curvatureMatrices(plan: ReturnType<typeof curvatureProbes>, columns: Record<CalibrationSet, Float64Array[]>, epsilon: readonly number[]): Pick<PreviewCurvature, 'hessian' | 'lowRank'> {
  const B = epsilon.length;
  if (!plan.dense) {
    const steps = plan.probes.map((p) => p.steps);
    return { lowRank: { reasoning: sketchedCurvature(steps, columns.reasoning, B), agent: sketchedCurvature(steps, columns.agent, B) } };
  }
  const dense = (set: CalibrationSet) => symmetrised(columns[set].map((column, b) => column.map((x) => x / (epsilon[b] as number))));
  const hessian = { reasoning: dense('reasoning'), agent: dense('agent') };
  return B <= DENSE_DIRECTIONS_MAX ? { hessian } : { lowRank: { reasoning: factorDense(hessian.reasoning, B, LOW_RANK), agent: factorDense(hessian.agent, B, LOW_RANK) } };
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
async function routerTerms(ctx: PipelineContext, names: readonly string[], dots: Record<CalibrationSet, Float64Array>): Promise<PreviewCurvature['routers']> {
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
    const at = (set: CalibrationSet, k: number) => dots[set][2 * i + k] ?? 0;
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
