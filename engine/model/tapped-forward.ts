/**
 * One layer-major forward over a set of sequences, each read at every layer by its own tap:
 * what captureActivations, linearInputMeans and captureRouting share, and what lets one pass
 * serve several of them at once (each layer read from disk once for all).
 *
 *   await forwardTapped(ctx, [{ ids, tap }, …], { to?, onLayerDone? })
 *   allTaps([a, b, …])   one sequence read by several taps, deliveries in that order
 *
 * A tap runs inside the layer's tidy, with the layer's output tensors alive, and returns a
 * delivery holding only plain values (or nothing); deliveries run after the layer has gone
 * through every sequence, in sequence order, each awaited. A looped model (loop-config.ts)
 * taps each layer once per pass.
 */
import type { LayerOutput } from './decoder-layer.ts';
import { embedSequences } from './embedding-rows.ts';
import { forwardLayers, type ModelContext } from './forward.ts';

/** Hands a layer's reading to its consumer, once the layer is done. */
export type Delivery = () => void | Promise<void>;

/** Reads one sequence's layer output (tensors valid only during the call). */
export type LayerTap = (output: LayerOutput, layer: number, pass: number) => Delivery | undefined;

export interface TappedSequence {
  readonly ids: ArrayLike<number>;
  readonly tap: LayerTap;
  /** Its embedding rows ([T·hidden]) when the caller has them; the others' are looked up (embedding-rows.ts). */
  readonly embedded?: Float32Array;
}

export interface TappedForwardOptions {
  /** Stop after this many layers of the first pass (default: all layers of every pass). */
  readonly to?: number;
  /** Called (and awaited) after each layer's deliveries. */
  readonly onLayerDone?: (layer: number, pass: number) => void | Promise<void>;
}

export async function forwardTapped(ctx: ModelContext, sequences: readonly TappedSequence[], options: TappedForwardOptions = {}): Promise<void> {
  const looked = (await embedSequences(ctx, sequences.filter((s) => s.embedded === undefined).map((s) => s.ids))).values();
  const hidden = sequences.map((s) => s.embedded ?? (looked.next().value as Float32Array));
  let pending: Delivery[] = [];
  await forwardLayers(ctx, hidden, {
    ...(options.to === undefined ? {} : { to: Math.min(options.to, ctx.spec.numLayers) }),
    hook: (layer, sequence, output, pass) => {
      const delivery = (sequences[sequence] as TappedSequence).tap(output, layer, pass);
      if (delivery !== undefined) pending.push(delivery);
    },
    onLayerDone: async (layer, pass) => {
      const ready = pending;
      pending = [];
      for (const deliver of ready) await deliver();
      await options.onLayerDone?.(layer, pass);
    },
  });
}

/** One sequence read by several taps; their deliveries run in the taps' order. */
export function allTaps(taps: readonly LayerTap[]): LayerTap {
  return (output, layer, pass) => {
    const deliveries = taps.flatMap((tap) => tap(output, layer, pass) ?? []);
    if (deliveries.length === 0) return undefined;
    return async () => {
      for (const deliver of deliveries) await deliver();
    };
  };
}
