/**
 * captureRouting: per sparse MoE layer and sequence, which experts each token was routed to and
 * the router softmax over all experts (moe-routing.ts), streamed layer by layer like
 * captureActivations. Dense layers (and dense models) report nothing.
 */
import { embedTokens, forwardLayers, type ModelContext } from './forward.ts';
import type { MoeRouting } from './moe-routing.ts';

export interface LayerRouting {
  readonly layer: number;
  /** Index of the sequence in the request. */
  readonly sequence: number;
  readonly routing: MoeRouting;
}

export async function captureRouting(ctx: ModelContext, sequences: readonly ArrayLike<number>[], consumer: (routing: LayerRouting) => void | Promise<void>): Promise<void> {
  const embedding = await ctx.embedding();
  const hidden = sequences.map((ids) => embedTokens(embedding, ids, ctx.spec.hiddenSize));
  let pending: LayerRouting[] = [];
  await forwardLayers(ctx, hidden, {
    hook: (layer, sequence, output) => {
      if (output.moe !== undefined) pending.push({ layer, sequence, routing: output.moe.routing });
    },
    onLayerDone: async () => {
      const ready = pending;
      pending = [];
      for (const r of ready) await consumer(r);
    },
  });
}
