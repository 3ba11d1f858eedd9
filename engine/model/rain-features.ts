/**
 * captureRainFeatures: what RAIN's reasoning constraints read from the thinking model on one LRM
 * prompt, per chosen decoder layer — the attention input X (input_layernorm output, every
 * position) and each query head's attention weights A_h (T × T, causal softmax rows). Streamed
 * layer by layer; nothing is kept after the consumer returns. engine/crane/rain-constraints.ts
 * turns them into constraints.
 */
import type * as tf from '@tensorflow/tfjs-core';
import { embedTokens, forwardLayers, type ModelContext } from './forward.ts';

export interface RainLayerCapture {
  readonly layer: number;
  readonly length: number;
  /** T × hidden row-major. */
  readonly inputs: Float64Array;
  /** Query head h's attention weights, T × T row-major. */
  readonly attention: (head: number) => Float64Array;
}

export async function captureRainFeatures(
  ctx: ModelContext,
  ids: ArrayLike<number>,
  layers: readonly number[],
  consumer: (capture: RainLayerCapture) => void | Promise<void>,
): Promise<void> {
  const { spec } = ctx;
  if (ids.length === 0) throw new RangeError('the prompt is empty: there are no positions to constrain');
  for (const layer of layers) {
    if (!Number.isInteger(layer) || layer < 0 || layer >= spec.numLayers) throw new RangeError(`layer ${layer} is outside 0…${spec.numLayers - 1}`);
  }
  if (layers.length === 0) return;
  const wanted = new Set(layers);
  const group = spec.numHeads / spec.numKvHeads;
  const t = ids.length;
  const hidden = [embedTokens(await ctx.embedding(), ids, spec.hiddenSize)];
  let pending: RainLayerCapture | undefined;
  await forwardLayers(ctx, hidden, {
    to: Math.max(...layers) + 1,
    hook: (layer, _sequence, output) => {
      if (!wanted.has(layer)) return;
      // [kvHeads][group·T·T]: read out inside the layer's tidy, sliced per query head on demand.
      const probs = output.attentionProbs().map((p) => p.dataSync());
      pending = {
        layer,
        length: t,
        inputs: Float64Array.from(output.attnInput.dataSync()),
        attention: (head) => {
          if (!Number.isInteger(head) || head < 0 || head >= spec.numHeads) throw new RangeError(`head ${head} is outside 0…${spec.numHeads - 1}`);
          const block = probs[Math.floor(head / group)] as tf.TypedArray;
          const start = (head % group) * t * t;
          return Float64Array.from(block.subarray(start, start + t * t));
        },
      };
    },
    onLayerDone: async () => {
      const ready = pending;
      pending = undefined;
      if (ready !== undefined) await consumer(ready);
    },
  });
}
