/**
 * greedyDecode: argmax decoding from a prompt, with a per-layer KV cache (default; a looped
 * model keeps one per (pass, layer): loop-passes.ts kvSlot) or by
 * recomputing the whole prefix every step (useCache: false — the reference the cache is tested
 * against). Stops after a stop token (included in the output, since calibration losses cover the
 * end-of-turn token) or after maxNewTokens. All layer weights stay in tfjs memory for the call.
 */
import * as tf from '@tensorflow/tfjs-core';
import { decoderLayer, type KvEntry } from './decoder-layer.ts';
import { embedTokens, type ModelContext } from './forward.ts';
import { disposeHead, headLogits, readHead, type HeadWeights } from './head.ts';
import { kvSlot, throughPasses } from './loop-passes.ts';
import { rmsNorm } from './ops.ts';
import { ropeTables } from './rope.ts';
import { disposeLayer, readLayer, type LayerWeights } from './weights.ts';

export interface DecodeOptions {
  readonly maxNewTokens: number;
  /** Token ids that end generation (eos / end-of-turn); default: the config's eos_token_id. */
  readonly stopTokenIds?: readonly number[];
  /** Default true. */
  readonly useCache?: boolean;
  /** Called with each new token as it is chosen. */
  readonly onToken?: (id: number) => void;
  readonly signal?: AbortSignal;
}

export interface DecodeResult {
  /** Generated tokens (not the prompt), the stop token included when one ended generation. */
  readonly tokens: number[];
  readonly stopReason: 'stop-token' | 'max-tokens';
}

export async function greedyDecode(ctx: ModelContext, prompt: ArrayLike<number>, options: DecodeOptions): Promise<DecodeResult> {
  if (prompt.length === 0) throw new RangeError('greedyDecode needs a non-empty prompt');
  if (options.maxNewTokens <= 0) return { tokens: [], stopReason: 'max-tokens' };
  const { spec } = ctx;
  const stops = new Set(options.stopTokenIds ?? spec.eosTokenIds);
  const embedding = await ctx.embedding();
  const layers: LayerWeights[] = [];
  let head: HeadWeights | undefined;
  let cache: KvEntry[] | undefined;
  try {
    for (let l = 0; l < spec.numLayers; l++) layers.push(await readLayer(ctx.checkpoint, spec, l));
    // Resident: the same head serves every token, so it is uploaded once rather than per step.
    head = await readHead(ctx, { resident: true });
    const run = (ids: ArrayLike<number>, start: number, past: KvEntry[] | undefined): { next: number; kv: KvEntry[] } => {
      const h = head as HeadWeights;
      return tf.tidy(() => {
        const rope = ropeTables(spec, start, ids.length);
        const kv: KvEntry[] = [];
        const input = tf.tensor2d(embedTokens(embedding, ids, spec.hiddenSize), [ids.length, spec.hiddenSize]);
        const x = throughPasses(spec, input, (hidden, pass, l) => {
          const o = decoderLayer(spec, (layers[l] as LayerWeights).params, hidden, rope, past?.[kvSlot(spec, pass, l)]);
          kv[kvSlot(spec, pass, l)] = o.kv;
          return o.out;
        }, (hidden) => rmsNorm(hidden, h.norm, spec.rmsNormEps));
        const last = tf.slice(x, [ids.length - 1, 0], [1, spec.hiddenSize]);
        const next = argmax(headLogits(spec, h, last));
        return { next, kv: kv.map((e) => ({ k: tf.keep(e.k), v: tf.keep(e.v) })) };
      });
    };
    const context = Array.from(prompt);
    const tokens: number[] = [];
    const useCache = options.useCache ?? true;
    for (;;) {
      options.signal?.throwIfAborted();
      let next: number;
      if (useCache) {
        const step = cache === undefined ? run(context, 0, undefined) : run(context.slice(-1), context.length - 1, cache);
        disposeCache(cache);
        cache = step.kv;
        next = step.next;
      } else {
        const step = run(context, 0, undefined);
        disposeCache(step.kv);
        next = step.next;
      }
      tokens.push(next);
      context.push(next);
      options.onToken?.(next);
      if (stops.has(next)) return { tokens, stopReason: 'stop-token' };
      if (tokens.length >= options.maxNewTokens) return { tokens, stopReason: 'max-tokens' };
    }
  } finally {
    disposeCache(cache);
    layers.forEach(disposeLayer);
    if (head !== undefined) disposeHead(head);
  }
}

function disposeCache(cache: KvEntry[] | undefined): void {
  if (cache !== undefined) for (const e of cache) tf.dispose([e.k, e.v]);
}

/** Index of the largest value (the first one on ties, like torch.argmax). */
export function argmax(values: Float32Array): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if ((values[i] as number) > (values[best] as number)) best = i;
  return best;
}
