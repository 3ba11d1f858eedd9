/**
 * Stage `projectors` (GSP, forward only, Instruct model): per layer and key (attn_input,
 * ffn_input) the Gram matrix HᵀH of the activations at D_F's format positions, its top
 * directions (projectorOfRows: r ≤ maxRank and ≤ the rows, σ_i > rankCut·σ_1; a key with fewer
 * than 2 rows or no direction gets no projector), and — from the same rows, for
 * the AIM baseline — the mean |x_j| per input channel.
 *
 *   projectorsKey(ctx, targetsKey) → StageKey
 *   runProjectors(ctx, clock)  → stages/projectors/{projectors,input-magnitudes}.safetensors
 *   readInputMagnitudes(dir) → Map<key, Float64Array>
 *
 * Sequences go through the model batchSequences at a time (each pass reads every layer once);
 * the accumulators persist across passes. Memory: the runtime holds one batch's hidden states
 * and one layer's weights; the accumulators are 2·L·d² float64 (for d = 2048 and 48 layers,
 * 3 GiB — the one place where the analysis is not layer-sized; a per-layer spill is possible
 * but unnecessary at the sizes the studio's runtime handles today).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readProjectors, writeProjectors } from '../analysis/projector-file.ts';
import { InputMagnitudeAccumulator } from '../crane/aim.ts';
import { GramAccumulator } from '../crane/gram-accumulator.ts';
import { projectorOfRows, type GspProjector } from '../crane/gsp-projector.ts';
import { projectorKey } from '../crane/tensor-classification.ts';
import { SafetensorsFile } from '../io/safetensors-reader.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { readSequences } from './calibration-sequences.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { throwIfCancelled, type StageClock } from './progress.ts';
import type { StageKey } from './stage-store.ts';

export const PROJECTORS_FILE = 'projectors.safetensors';
export const MAGNITUDES_FILE = 'input-magnitudes.safetensors';

export function projectorsKey(ctx: PipelineContext, targets: StageKey): StageKey {
  const { maxRank, rankCut } = ctx.settings.analysis.gsp;
  return { targets, instruct: ctx.inputs.instruct, maxRank, rankCut };
}

export async function runProjectors(ctx: PipelineContext, clock: StageClock): Promise<void> {
  const model = loadCausalLM(ctx.instruct);
  const { hiddenSize: d, numLayers } = model.spec;
  const sequences = (await readSequences(ctx.paths.sequences))
    .filter((s) => s.set === 'format' && (s.formatPositions?.length ?? 0) > 0)
    .map((s) => ({ ids: s.ids, positions: s.formatPositions as number[] }));
  const grams = new Map<string, GramAccumulator>();
  const magnitudes = new Map<string, InputMagnitudeAccumulator>();
  const feed = (key: string, rows: Float32Array) => {
    if (!grams.has(key)) {
      grams.set(key, new GramAccumulator(d));
      magnitudes.set(key, new InputMagnitudeAccumulator(d));
    }
    grams.get(key)?.addRows(rows);
    magnitudes.get(key)?.addRows(rows);
  };
  const batch = ctx.settings.batchSequences;
  const passes = Math.max(1, Math.ceil(sequences.length / batch));
  for (let pass = 0; pass < passes; pass++) {
    await model.captureActivations(sequences.slice(pass * batch, (pass + 1) * batch), (a) => {
      throwIfCancelled(ctx.callbacks.signal, 'projectors');
      feed(projectorKey(a.layer, 'attn_input'), a.attnInput);
      feed(projectorKey(a.layer, 'ffn_input'), a.ffnInput);
      clock.report((pass + (a.layer + 1) / numLayers) / (passes + 1), `format pass ${pass + 1}/${passes}, layer ${a.layer}`);
    });
  }
  const projectors = new Map<string, GspProjector>();
  const { maxRank, rankCut } = ctx.settings.analysis.gsp;
  for (const [i, [key, gram]] of [...grams].entries()) {
    throwIfCancelled(ctx.callbacks.signal, 'projectors');
    const projector = projectorOfRows(gram, { maxRank, rankCut });
    if (projector !== undefined) projectors.set(key, projector);
    clock.report((passes + (i + 1) / grams.size) / (passes + 1), `eigen-decomposition ${key}`);
  }
  // A resumed stage redoes the whole pass: files a crashed run wrote before its marker go first.
  const [projectorsPath, magnitudesPath] = [join(ctx.paths.projectors, PROJECTORS_FILE), join(ctx.paths.projectors, MAGNITUDES_FILE)];
  await Promise.all([rm(projectorsPath, { force: true }), rm(magnitudesPath, { force: true })]);
  await writeProjectors(projectorsPath, projectors);
  await writeSafetensors(magnitudesPath, [...magnitudes].map(([key, m]) => ({
    spec: { name: key, dtype: 'F64' as const, shape: [d] }, data: m.importance(),
  })));
}

export function readStageProjectors(ctx: PipelineContext): Promise<Map<string, GspProjector>> {
  return readProjectors(join(ctx.paths.projectors, PROJECTORS_FILE));
}

/** mean |x_j| per projector key (`layer_3_attn_input`), for AIM. */
export async function readInputMagnitudes(path: string): Promise<Map<string, Float64Array>> {
  const file = await SafetensorsFile.open(path);
  try {
    const out = new Map<string, Float64Array>();
    for (const name of file.tensors.keys()) out.set(name, (await file.readRaw(name)) as Float64Array);
    return out;
  } finally {
    await file.close();
  }
}
