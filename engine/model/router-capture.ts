/**
 * captureRouting: per sparse MoE layer and sequence, which experts each token was routed to and
 * the router softmax over all experts (moe-routing.ts), streamed layer by layer like
 * captureActivations. Dense layers (and dense models) report nothing. routingTap is the same
 * reading as a tap (tapped-forward.ts), for a pass shared with others.
 */
import type { ModelContext } from './forward.ts';
import type { MoeRouting } from './moe-routing.ts';
import { forwardTapped, type LayerTap } from './tapped-forward.ts';

export interface LayerRouting {
  readonly layer: number;
  /** Index of the sequence in the request. */
  readonly sequence: number;
  readonly routing: MoeRouting;
}

/** The tap of sequence `sequence` (its index in the caller's request): its routing at each sparse layer. */
export function routingTap(sequence: number, consumer: (routing: LayerRouting) => void | Promise<void>): LayerTap {
  return (output, layer) => {
    const moe = output.moe;
    return moe === undefined ? undefined : () => consumer({ layer, sequence, routing: moe.routing });
  };
}

export async function captureRouting(ctx: ModelContext, sequences: readonly ArrayLike<number>[], consumer: (routing: LayerRouting) => void | Promise<void>): Promise<void> {
  await forwardTapped(ctx, sequences.map((ids, i) => ({ ids, tap: routingTap(i, consumer) })));
}
