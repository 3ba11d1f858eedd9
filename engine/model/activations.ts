/**
 * captureActivations: per decoder layer, the rows of the input_layernorm output (attnInput: the
 * input of q/k/v) and of the post_attention_layernorm output (ffnInput: the input of gate/up) at
 * chosen positions of each sequence, streamed to a consumer layer by layer, sequence by sequence.
 * Nothing is kept after the consumer returns; the forward is layer-major over the given
 * sequences, so memory is one layer's weights plus the sequences' current hidden states.
 * A looped model (loop-config.ts) streams each layer once per pass, tagged with the pass.
 */
import * as tf from '@tensorflow/tfjs-core';
import { embedTokens, forwardLayers, type ModelContext } from './forward.ts';

export interface CaptureSequence {
  readonly ids: ArrayLike<number>;
  /** Token positions to capture (0-based, within the sequence). */
  readonly positions: readonly number[];
}

export interface LayerActivations {
  readonly layer: number;
  /** Pass of the decoder stack (0 unless the model is looped). */
  readonly pass: number;
  /** Index of the sequence in the request. */
  readonly sequence: number;
  readonly positions: readonly number[];
  /** [positions.length × hidden], row-major, fp32. */
  readonly attnInput: Float32Array;
  readonly ffnInput: Float32Array;
}

export type ActivationConsumer = (activations: LayerActivations) => void | Promise<void>;

export interface CaptureOptions {
  /** Stop after this many layers of the first pass (default: all layers of every pass). */
  readonly layers?: number;
}

export async function captureActivations(ctx: ModelContext, sequences: readonly CaptureSequence[], consumer: ActivationConsumer, options: CaptureOptions = {}): Promise<void> {
  const { spec } = ctx;
  sequences.forEach((s, i) => {
    for (const p of s.positions) {
      if (!Number.isInteger(p) || p < 0 || p >= s.ids.length) throw new RangeError(`sequence ${i}: position ${p} is outside 0…${s.ids.length - 1}`);
    }
  });
  const embedding = await ctx.embedding();
  const hidden = sequences.map((s) => embedTokens(embedding, s.ids, spec.hiddenSize));
  let pending: LayerActivations[] = [];
  await forwardLayers(ctx, hidden, {
    ...(options.layers === undefined ? {} : { to: Math.min(options.layers, spec.numLayers) }),
    hook: (layer, sequence, output, pass) => {
      const positions = (sequences[sequence] as CaptureSequence).positions;
      if (positions.length === 0) return;
      const index = tf.tensor1d(positions as number[], 'int32');
      pending.push({
        layer,
        pass,
        sequence,
        positions,
        attnInput: tf.gather(output.attnInput, index).dataSync() as Float32Array,
        ffnInput: tf.gather(output.ffnInput, index).dataSync() as Float32Array,
      });
    },
    onLayerDone: async () => {
      const ready = pending;
      pending = [];
      for (const a of ready) await consumer(a);
    },
  });
}
