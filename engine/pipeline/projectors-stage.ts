/**
 * Stage `projectors` (GSP, forward only, Instruct model): per layer and key (attn_input,
 * ffn_input) the Gram matrix HᵀH of the activations at D_F's format positions, its top
 * directions (projectorOfRows: r ≤ maxRank and ≤ the rows, σ_i > rankCut·σ_1; a key with fewer
 * than 2 rows or no direction gets no projector); in the same model pass, the AIM baselines'
 * importance (aim-importance.ts: every Linear input on the D_R + D_A prompts), and for an MoE
 * model the router statistics per set, layer and expert (router-stats-measure.ts).
 *
 *   projectorsKey(ctx, targetsKey) → StageKey
 *   runProjectors(ctx, clock)  → stages/projectors/{projectors,aim-importance}.safetensors [+ router-stats.json]
 *                                [+ pass-spectra.json for a looped model: each pass's σ beside the pooled]
 *
 * The three measurements share their passes (shared-forward.ts): every layer is read and
 * widened once per batchSequences sequences for all of them, a format chat counted by the
 * router statistics goes through once; on two cores a worker thread computes part of each pass
 * (lane-count.ts decides); the accumulators persist across passes, and a layer's two keys go to
 * the solves (projector-solves.ts; their accumulators dropped here) as soon as its last pass has
 * delivered its rows: solved by this thread while it would otherwise wait for the lane, by the
 * lane once its part of the pass is done, by both from either end of the queue after the pass. Memory: the runtime holds one batch's hidden states
 * and one layer's weights; the accumulators are 2·L·d² float64 (for d = 2048 and 48 layers,
 * 3 GiB — the one place where the analysis is not layer-sized; a per-layer spill is possible
 * but unnecessary at the sizes the studio's runtime handles today). A looped model's captures
 * come once per pass; the projectors pool them (each layer's Gram takes every pass's rows, pass
 * 0's first) and PassSpectra keeps one more Gram per pass for the per-pass spectra.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readProjectors, writeProjectors } from '../analysis/projector-file.ts';
import { GramAccumulator } from '../crane/gram-accumulator.ts';
import type { GspProjector } from '../crane/gsp-projector.ts';
import { projectorKey } from '../crane/tensor-classification.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { passCount } from '../model/loop-config.ts';
import { PASS_SPECTRA_FILE, writePassSpectra } from '../analysis/pass-metrics.ts';
import { writeAimImportance } from '../crane/aim-importance-file.ts';
import { ROUTER_STATS_FILE, writeRouterStats } from '../analysis/router-stats.ts';
import { AIM_IMPORTANCE_FILE, aimImportanceMeasurement, aimPrompts } from './aim-importance.ts';
import { readSequences } from './calibration-sequences.ts';
import { ForwardLane } from './forward-lane.ts';
import { activationRequest } from './forward-requests.ts';
import { forwardLanes } from './lane-count.ts';
import { routerStatsMeasurement } from './router-stats-measure.ts';
import { runSharedForward } from './shared-forward.ts';
import { PassSpectra } from './pass-spectra.ts';
import { ProjectorSolves } from './projector-solves.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { throwIfCancelled, type StageClock } from './progress.ts';
import type { StageKey } from './stage-store.ts';

export const PROJECTORS_FILE = 'projectors.safetensors';
/** Progress share of the model pass; the eigen-solves take the rest (about a tenth of the stage's time). */
const FORWARD_SHARE = 0.9;

/** A looped model's stage also writes the per-pass spectra; other keys are unchanged. */
export function projectorsKey(ctx: PipelineContext, targets: StageKey): StageKey {
  const { maxRank, rankCut } = ctx.settings.analysis.gsp;
  const looped = passCount(loadCausalLM(ctx.instruct).spec) > 1;
  return { targets, instruct: ctx.inputs.instruct, maxRank, rankCut, ...(looped ? { passSpectra: 1 } : {}) };
}

export async function runProjectors(ctx: PipelineContext, clock: StageClock): Promise<void> {
  const model = loadCausalLM(ctx.instruct);
  const { hiddenSize: d, numLayers } = model.spec;
  const calibration = await readSequences(ctx.paths.sequences);
  const sequences = calibration
    .filter((s) => s.set === 'format' && (s.formatPositions?.length ?? 0) > 0)
    .map((s) => ({ ids: s.ids, positions: s.formatPositions as number[] }));
  const grams = new Map<string, GramAccumulator>();
  const loopPasses = passCount(model.spec);
  const perPass = loopPasses > 1 ? new PassSpectra(d, loopPasses) : undefined;
  /** The keys in the order of their first rows: the order projectors.safetensors lists them in. */
  const keys: string[] = [];
  const feed = (key: string, rows: Float32Array) => {
    let gram = grams.get(key);
    if (gram === undefined) {
      gram = new GramAccumulator(d);
      grams.set(key, gram);
      keys.push(key);
    }
    gram.addRows(rows);
  };
  const formatRequests = sequences.map((s, i) => activationRequest(s.ids, s.positions, i, (a) => {
    feed(projectorKey(a.layer, 'attn_input'), a.attnInput);
    feed(projectorKey(a.layer, 'ffn_input'), a.ffnInput);
    perPass?.add(a);
  }));
  const aim = aimImportanceMeasurement(aimPrompts(calibration));
  const router = routerStatsMeasurement(model.spec, calibration);
  const { maxRank, rankCut } = ctx.settings.analysis.gsp;
  // Router first: its format chats are GSP's too, and share their forward only in that order.
  const measurements = [...(router === undefined ? [] : [router.requests]), formatRequests, aim.requests];
  const lane = forwardLanes(ctx.instruct, measurements.flat()) === 2 ? ForwardLane.launch(ctx.instruct.dir) : undefined;
  let solved: Map<string, GspProjector | undefined>;
  try {
    const solves = new ProjectorSolves({ maxRank, rankCut }, lane);
    // A key goes to the solves as soon as its layer's rows are all in, and its accumulator with it.
    const release = (key: string): void => {
      const gram = grams.get(key);
      grams.delete(key);
      if (gram !== undefined) solves.add(key, gram);
    };
    await runSharedForward(model, measurements, {
      batch: ctx.settings.batchSequences,
      ...(lane === undefined ? {} : { lane }),
      onProgress: (fraction, text) => {
        throwIfCancelled(ctx.callbacks.signal, 'projectors');
        clock.report(fraction * FORWARD_SHARE, text);
      },
      onLayerFinal: (layer) => {
        for (const kind of ['attn_input', 'ffn_input'] as const) release(projectorKey(layer, kind));
      },
    });
    for (const key of keys) release(key);
    solved = await solves.finish((done) => {
      throwIfCancelled(ctx.callbacks.signal, 'projectors');
      clock.report(FORWARD_SHARE + ((1 - FORWARD_SHARE) * done) / keys.length, `eigen-decompositions ${done}/${keys.length}`);
    });
  } finally {
    await lane?.close();
  }
  const projectors = new Map<string, GspProjector>();
  for (const key of keys) {
    const projector = solved.get(key);
    if (projector !== undefined) projectors.set(key, projector);
  }
  const importance = aim.result();
  const routerStats = router?.result();
  // A resumed stage redoes the whole pass: files a crashed run wrote before its marker go first.
  const [projectorsPath, importancePath, routerPath, spectraPath] = [PROJECTORS_FILE, AIM_IMPORTANCE_FILE, ROUTER_STATS_FILE, PASS_SPECTRA_FILE].map((f) => join(ctx.paths.projectors, f)) as [string, string, string, string];
  await Promise.all([projectorsPath, importancePath, routerPath, spectraPath].map((f) => rm(f, { force: true })));
  await writeProjectors(projectorsPath, projectors);
  await writeAimImportance(importancePath, importance);
  if (routerStats !== undefined) await writeRouterStats(routerPath, routerStats);
  if (perPass !== undefined) await writePassSpectra(spectraPath, perPass.spectra(numLayers, projectors, { maxRank, rankCut }));
}

export function readStageProjectors(ctx: PipelineContext): Promise<Map<string, GspProjector>> {
  return readProjectors(join(ctx.paths.projectors, PROJECTORS_FILE));
}
