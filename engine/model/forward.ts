/**
 * Layer-major forward over a set of sequences: the embedding rows are gathered in JS, then each
 * decoder layer is read from disk once and applied to every sequence before the next layer is
 * read. Hidden states live between layers as plain Float32Arrays (outside the tfjs heap, which
 * on wasm is capped at a few GiB), so the tfjs working set is one layer's weights plus one
 * sequence's activations.
 */
import * as tf from '@tensorflow/tfjs-core';
import { tidyValues } from '../tensor/tidy-values.ts';
import type { ModelSpec } from './config.ts';
import { decoderLayer, type LayerOutput } from './decoder-layer.ts';
import { passCount } from './loop-config.ts';
import { betweenPasses } from './loop-passes.ts';
import { ropeTables, type RopeTables } from './rope.ts';
import { EMBED_NAME, disposeLayer, readChecked, readLayer, type LayerParams, type WeightSource } from './weights.ts';

/** What the model runtime needs from a loaded checkpoint. */
export interface ModelContext {
  readonly checkpoint: WeightSource;
  readonly spec: ModelSpec;
  /** The token embedding matrix [vocab, hidden], read once and cached in JS memory. */
  readonly embedding: () => Promise<Float32Array>;
}

export function createContext(checkpoint: WeightSource, spec: ModelSpec): ModelContext {
  let cached: Promise<Float32Array> | undefined;
  return {
    checkpoint,
    spec,
    embedding: () => (cached ??= readChecked(checkpoint, EMBED_NAME, [spec.vocabSize, spec.hiddenSize])),
  };
}

/** Embedding rows of `ids`, [T·hidden] row-major. Token ids are range-checked. */
export function embedTokens(embedding: Float32Array, ids: ArrayLike<number>, hidden: number): Float32Array {
  assertTokenIds(ids, embedding.length / hidden);
  const out = new Float32Array(ids.length * hidden);
  for (let t = 0; t < ids.length; t++) {
    const id = ids[t] as number;
    out.set(embedding.subarray(id * hidden, (id + 1) * hidden), t * hidden);
  }
  return out;
}

/** Refuses an id that is not a row of a `vocab`-row embedding, naming it and its position. */
export function assertTokenIds(ids: ArrayLike<number>, vocab: number): void {
  for (let t = 0; t < ids.length; t++) {
    const id = ids[t] as number;
    if (!Number.isInteger(id) || id < 0 || id >= vocab) throw new RangeError(`token id ${id} at position ${t} is outside the vocabulary (0…${vocab - 1})`);
  }
}

/** RoPE tables per distinct sequence length, shared by all layers of one pass. */
export class RopeCache {
  private readonly tables = new Map<number, RopeTables>();
  constructor(private readonly spec: ModelSpec) {}

  get(length: number): RopeTables {
    let tables = this.tables.get(length);
    if (tables === undefined) {
      // Kept: the first call may come from inside a tf.tidy, but the tables outlive it.
      const fresh = ropeTables(this.spec, 0, length);
      tables = { cos: tf.keep(fresh.cos), sin: tf.keep(fresh.sin) };
      this.tables.set(length, tables);
    }
    return tables;
  }

  dispose(): void {
    for (const t of this.tables.values()) tf.dispose([t.cos, t.sin]);
    this.tables.clear();
  }
}

/** Called after each layer with its parameters still alive, per sequence, inside a tf.tidy. */
export type LayerHook = (layer: number, sequence: number, output: LayerOutput, pass: number) => void;

/**
 * Pushes `hidden` (one [T·hidden] array per sequence) through layers from..to−1 in place,
 * layer-major. `keep` receives each layer's inputs before they are replaced (for recompute).
 *
 * A looped model (loop-config.ts) asked for no range runs every pass, each reading its layers
 * from disk again, with the step between passes of loop-passes.ts; `keep` then also receives a
 * pass's output before a norm between passes, as layer numLayers. A range is of the first pass.
 */
export async function forwardLayers(
  ctx: ModelContext,
  hidden: Float32Array[],
  options: { from?: number; to?: number; hook?: LayerHook; keep?: (layer: number, inputs: readonly Float32Array[], pass: number) => void; onLayerDone?: (layer: number, pass: number) => Promise<void> } = {},
): Promise<void> {
  const { spec } = ctx;
  const ropes = new RopeCache(spec);
  const passes = options.from === undefined && options.to === undefined ? passCount(spec) : 1;
  try {
    for (let pass = 0; pass < passes; pass++) {
      if (pass > 0) await betweenPasses(ctx, hidden, (inputs) => options.keep?.(spec.numLayers, inputs, pass - 1));
      for (let layer = options.from ?? 0; layer < (options.to ?? spec.numLayers); layer++) {
        options.keep?.(layer, [...hidden], pass);
        const weights = await readLayer(ctx.checkpoint, spec, layer);
        try {
          for (let s = 0; s < hidden.length; s++) hidden[s] = layerOnSequence(spec, weights.params, hidden[s] as Float32Array, ropes, (o) => options.hook?.(layer, s, o, pass));
        } finally {
          disposeLayer(weights);
        }
        await options.onLayerDone?.(layer, pass);
      }
    }
  } finally {
    ropes.dispose();
  }
}

function layerOnSequence(spec: ModelSpec, params: LayerParams, input: Float32Array, ropes: RopeCache, hook: (o: LayerOutput) => void): Float32Array {
  const length = input.length / spec.hiddenSize;
  return tidyValues(() => {
    const output = decoderLayer(spec, params, tf.tensor2d(input, [length, spec.hiddenSize]), ropes.get(length));
    hook(output);
    return output.out;
  });
}
