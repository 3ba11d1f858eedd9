/**
 * One layer-major forward over a set of sequences, each read at every layer by its own tap:
 * what captureActivations, linearInputMeans and captureRouting share, and what lets one pass
 * serve several of them at once (each layer read from disk once for all).
 *
 *   await forwardTapped(ctx, [{ ids, tap }, …], { to?, onLayerDone? })
 *   bothTaps(a, b)     one sequence read by two taps, a's delivery first
 *
 * A tap runs inside the layer's tidy, with the layer's output tensors alive, and returns a
 * delivery holding only plain values (or nothing); deliveries run after the layer has gone
 * through every sequence, in sequence order, each awaited. A looped model (loop-config.ts)
 * taps each layer once per pass.
 */
import type { LayerOutput } from './decoder-layer.ts';
import { embedTokens, forwardLayers, type ModelContext } from './forward.ts';

/** Hands a layer's reading to its consumer, once the layer is done. */
export type Delivery = () => void | Promise<void>;

/** Reads one sequence's layer output (tensors valid only during the call). */
export type LayerTap = (output: LayerOutput, layer: number, pass: number) => Delivery | undefined;

export interface TappedSequence {
  readonly ids: ArrayLike<number>;
  readonly tap: LayerTap;
}

export interface TappedForwardOptions {
  /** Stop after this many layers of the first pass (default: all layers of every pass). */
  readonly to?: number;
  /** Called after each layer's deliveries (progress, cancellation). */
  readonly onLayerDone?: (layer: number, pass: number) => void;
}

export async function forwardTapped(ctx: ModelContext, sequences: readonly TappedSequence[], options: TappedForwardOptions = {}): Promise<void> {
  const embedding = await ctx.embedding();
  const hidden = sequences.map((s) => embedTokens(embedding, s.ids, ctx.spec.hiddenSize));
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
      options.onLayerDone?.(layer, pass);
    },
  });
}

export function bothTaps(first: LayerTap, second: LayerTap): LayerTap {
  return (output, layer, pass) => {
    const a = first(output, layer, pass);
    const b = second(output, layer, pass);
    if (a === undefined || b === undefined) return a ?? b;
    return async () => {
      await a();
      await b();
    };
  };
}
