/**
 * A Qwen3 model whose every target logit dominates its row — the case where float32 softmax
 * sums lose the rest of the row: a seeded random untied checkpoint (one layer) whose lm_head
 * rows of the labels are replaced by each predicting row's normalised final hidden state,
 * scaled so the target logit is about `margin` (the other logits are O(0.5)).
 */
import { rm } from 'node:fs/promises';
import { Checkpoint } from '../../io/checkpoint.ts';
import { SeededRandom } from '../../protocol/seeded-random.ts';
import { loadCausalLM } from '../causal-lm.ts';
import { targetRows } from '../head.ts';
import type { LossSequence } from '../layer-grads.ts';
import { finalHidden } from '../scoring.ts';
import { LM_HEAD_NAME, type WeightSource } from '../weights.ts';
import { withOverrides } from './override-source.ts';
import { writeTinyCheckpoint } from './tiny-checkpoint.ts';

export interface DominantModel {
  readonly source: WeightSource;
  readonly batch: LossSequence[];
  close(): Promise<void>;
}

export async function dominantHeadModel(options: { vocab: number; hidden: number; tokens: number; margin: number; seed: number }): Promise<DominantModel> {
  const dir = await writeTinyCheckpoint({ family: 'qwen3', tied: false, vocab: options.vocab, hidden: options.hidden, intermediate: 96, layers: 1, heads: 4, kvHeads: 2, headDim: 16, seed: options.seed, std: 0.05 });
  const checkpoint = await Checkpoint.open(dir);
  const close = async (): Promise<void> => {
    await checkpoint.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const rng = new SeededRandom(options.seed);
    const ids = Array.from({ length: options.tokens }, () => rng.int(0, options.vocab - 1));
    const batch = [{ ids, targets: ids.map((_, t) => (t === 0 ? 0 : 1)) }];
    const head = await dominantRows(checkpoint, batch[0] as LossSequence, options.margin);
    return { source: withOverrides(checkpoint, new Map([[LM_HEAD_NAME, head]])), batch, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function dominantRows(source: WeightSource, seq: LossSequence, margin: number): Promise<Float32Array> {
  const model = loadCausalLM(source);
  const width = model.spec.hiddenSize;
  const [hidden] = (await finalHidden(model.context, [seq.ids])) as [Float32Array];
  const head = Float32Array.from(await source.readFloat32(LM_HEAD_NAME));
  const { rows, labels } = targetRows(seq.ids, seq.targets);
  rows.forEach((r, j) => {
    const h = hidden.subarray(r * width, (r + 1) * width);
    const rms = Math.sqrt(h.reduce((a, v) => a + v * v, 0) / width);
    const label = labels[j] as number;
    // normed·row ≈ Σ (h/rms)² · margin/width = margin (norm weights are ≈ 1).
    for (let k = 0; k < width; k++) head[label * width + k] = ((h[k] as number) / rms) * (margin / width);
  });
  return head;
}
