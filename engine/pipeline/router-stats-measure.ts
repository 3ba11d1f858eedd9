/**
 * The analysis' router statistics (MoE models only), measured on the Instruct model by the
 * projectors stage: per calibration set, the D_R and D_A loss-target tokens (what the gradients
 * score) and D_F's format positions (what GSP captures) — counted at the token's own position.
 * One forward pass over every calibration sequence, batchSequences at a time.
 */
import { RouterStatsAccumulator, type RouterStats } from '../analysis/router-stats.ts';
import type { CausalLM } from '../model/causal-lm.ts';
import { captureRouting } from '../model/router-capture.ts';
import type { CalibrationSequence } from './calibration-sequences.ts';

/** The positions of a sequence that count for its set. */
function countedPositions(s: CalibrationSequence): number[] {
  if (s.set === 'format') return [...(s.formatPositions ?? [])];
  return (s.lossMask ?? []).flatMap((m, t) => (m === 1 ? [t] : []));
}

export async function measureRouterStats(
  model: CausalLM, calibration: readonly CalibrationSequence[], batch: number, onProgress: (fraction: number, text: string) => void,
): Promise<RouterStats | undefined> {
  const moe = model.spec.moe;
  if (moe === undefined) return undefined;
  const sequences = calibration.filter((s) => s.split === 'train' && countedPositions(s).length > 0);
  const stats = new RouterStatsAccumulator(moe.numExperts, moe.expertsPerToken);
  const passes = Math.ceil(sequences.length / batch);
  for (let pass = 0; pass < passes; pass++) {
    const slice = sequences.slice(pass * batch, (pass + 1) * batch);
    await captureRouting(model.context, slice.map((s) => s.ids), ({ layer, sequence, routing }) => {
      const s = slice[sequence] as CalibrationSequence;
      stats.add(s.set, layer, routing, countedPositions(s));
      onProgress((pass + (layer + 1) / model.spec.numLayers) / passes, `router statistics pass ${pass + 1}/${passes}, layer ${layer}`);
    });
  }
  return stats.json();
}
