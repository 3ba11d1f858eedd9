/**
 * The runtime's loss gradients against the float64 head (head-reference.ts), as relative errors
 * ‖got − ref‖₂ / ‖ref‖₂:
 *
 *   layers   every decoder-layer gradient of lossAndLayerGrads, against the same layer-wise
 *            backward fed with the float64 head's d/d final hidden (layerGradsFromHidden) — so
 *            the difference is the head's own error as it reaches every layer (g_A, g_R);
 *   norm, lmHead   model.norm and lm_head gradients (with `headGrads`), against float64 directly;
 *   loss     |objective − float64 objective|.
 *
 * Used by engine/model/head-loss.test.ts and tools/measure-head-precision.ts.
 */
import { loadCausalLM } from '../causal-lm.ts';
import { gatherRows, targetRows } from '../head.ts';
import { HEAD_GRADS_LAYER, layerGradsFromHidden, type LossSequence } from '../layer-grads.ts';
import { finalHidden } from '../scoring.ts';
import { EMBED_NAME, FINAL_NORM_NAME, LM_HEAD_NAME, type WeightSource } from '../weights.ts';
import { headReference } from './head-reference.ts';

export interface HeadPrecision {
  readonly layers: number;
  readonly norm?: number;
  readonly lmHead?: number;
  readonly loss: number;
}

/** Squared error and squared norm, summed so tensors can be pooled. */
export class RelativeError {
  private diff = 0;
  private norm = 0;

  add(got: ArrayLike<number>, want: ArrayLike<number>): this {
    if (got.length !== want.length) throw new RangeError(`compared arrays differ in length: ${got.length} vs ${want.length}`);
    for (let i = 0; i < want.length; i++) {
      this.diff += ((got[i] as number) - (want[i] as number)) ** 2;
      this.norm += (want[i] as number) ** 2;
    }
    return this;
  }

  value(): number {
    return Math.sqrt(this.diff / this.norm);
  }
}

export async function headPrecision(source: WeightSource, batch: readonly LossSequence[], headGrads: boolean): Promise<HeadPrecision> {
  const model = loadCausalLM(source);
  const { spec } = model;
  if (headGrads && spec.tiedEmbeddings) throw new RangeError('headPrecision compares lm_head gradients of untied models only (tied ones add the lookup gradient)');
  const width = spec.hiddenSize;
  const got = new Map<string, Float32Array>();
  const result = await model.lossAndLayerGrads(batch, (_l, grads) => void grads.forEach((g, n) => got.set(n, g)), { headGrads });

  const hidden = await finalHidden(model.context, batch.map((s) => s.ids));
  const seqs = batch.map((s) => targetRows(s.ids, s.targets));
  const reference = headReference({
    hidden: Float32Array.from(seqs.flatMap((s, i) => Array.from(gatherRows(hidden[i] as Float32Array, s.rows, width)))),
    norm: await source.readFloat32(FINAL_NORM_NAME),
    head: await source.readFloat32(spec.tiedEmbeddings ? EMBED_NAME : LM_HEAD_NAME),
    labels: seqs.flatMap((s) => s.labels),
    weights: seqs.flatMap((s) => s.rows.map(() => 1 / (batch.length * s.rows.length))),
    eps: spec.rmsNormEps,
  });
  let offset = 0;
  let refLoss = 0;
  const dFinal = seqs.map((s, i) => {
    const d = new Float32Array((hidden[i] as Float32Array).length);
    s.rows.forEach((r, j) => d.set(reference.dHidden.subarray((offset + j) * width, (offset + j + 1) * width), r * width));
    refLoss += reference.losses.subarray(offset, offset + s.rows.length).reduce((a, b) => a + b, 0) / s.rows.length / batch.length;
    offset += s.rows.length;
    return d;
  });
  const layers = new RelativeError();
  await layerGradsFromHidden(model.context, batch, dFinal, (layer, grads) => {
    if (layer !== HEAD_GRADS_LAYER) for (const [name, want] of grads) layers.add(got.get(name) as Float32Array, want);
  });
  return {
    layers: layers.value(),
    loss: Math.abs(result.loss - refLoss),
    ...(headGrads
      ? {
          norm: new RelativeError().add(got.get(FINAL_NORM_NAME) as Float32Array, reference.dNorm).value(),
          lmHead: new RelativeError().add(got.get(LM_HEAD_NAME) as Float32Array, reference.dHead).value(),
        }
      : {}),
  };
}
