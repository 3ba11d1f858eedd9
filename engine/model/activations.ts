/**
 * captureActivations: per decoder layer, the rows of the input_layernorm output (attnInput: the
 * input of q/k/v) and of the post_attention_layernorm output (ffnInput: the input of gate/up) at
 * chosen positions of each sequence, streamed to a consumer layer by layer, sequence by sequence.
 * Nothing is kept after the consumer returns; the forward is layer-major over the given
 * sequences, so memory is one layer's weights plus the sequences' current hidden states.
 * A looped model (loop-config.ts) streams each layer once per pass, tagged with the pass.
 * activationTap is the same capture as a tap (tapped-forward.ts), for a pass shared with others.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ModelContext } from './forward.ts';
import { forwardTapped, type LayerTap } from './tapped-forward.ts';

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

/**
 * The tap of sequence `sequence` (its index in the caller's request) capturing `positions`;
 * positions outside the sequence are refused here, before any forward.
 */
export function activationTap(ids: ArrayLike<number>, positions: readonly number[], sequence: number, consumer: ActivationConsumer): LayerTap {
  for (const p of positions) {
    if (!Number.isInteger(p) || p < 0 || p >= ids.length) throw new RangeError(`sequence ${sequence}: position ${p} is outside 0…${ids.length - 1}`);
  }
  return (output, layer, pass) => {
    if (positions.length === 0) return undefined;
    const index = tf.tensor1d(positions as number[], 'int32');
    const activations: LayerActivations = {
      layer,
      pass,
      sequence,
      positions,
      attnInput: tf.gather(output.attnInput, index).dataSync() as Float32Array,
      ffnInput: tf.gather(output.ffnInput, index).dataSync() as Float32Array,
    };
    return () => consumer(activations);
  };
}

export async function captureActivations(ctx: ModelContext, sequences: readonly CaptureSequence[], consumer: ActivationConsumer, options: CaptureOptions = {}): Promise<void> {
  const tapped = sequences.map((s, i) => ({ ids: s.ids, tap: activationTap(s.ids, s.positions, i, consumer) }));
  await forwardTapped(ctx, tapped, options.layers === undefined ? {} : { to: options.layers });
}
