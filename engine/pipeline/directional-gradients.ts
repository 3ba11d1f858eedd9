/**
 * Gradients along the edit's directions, without keeping a gradient: one backward pass of a set's
 * loss at some weights, dotted with every unit direction Δ_b as the layers stream by.
 *
 *   const along = new DirectionalGradients(instruct, thinking, basis, probes?)
 *   await along.pass(weights, batch, batchSize, signal) → { loss, dots }   dots[b] = ∇L(weights)·Δ_b
 *
 * `probes` are tensors (the routers, which are no direction) whose ∇L·θ_I and ∇L·θ_T are
 * appended to dots, two per probe in the given order after the B directions.
 *
 * Head gradients are asked for too (`headGrads`), so the embedding think rows, lm_head and the
 * final norm are dotted like the layer tensors; with tied embeddings the embedding's gradient is
 * the sum of its two uses, which is what moving its think rows does to the loss.
 * The unit directions are the same for every pass, so each tensor's Δ_b is computed once and
 * kept while they fit in DELTA_CACHE_BYTES (the demo's all do), recomputed per pass beyond it.
 */
import type { DirectionBasis } from '../crane/edit-directions.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import type { WeightSource } from '../model/weights.ts';
import { throwIfCancelled } from './progress.ts';

const DELTA_CACHE_BYTES = 512 * 2 ** 20;

export interface DirectionalPass {
  /** The set's objective at these weights (mean over sequences of the per-sequence mean CE). */
  readonly loss: number;
  readonly dots: Float64Array;
}

type TensorDeltas = { direction: number; delta: Float32Array }[];

export class DirectionalGradients {
  private readonly cache = new Map<string, TensorDeltas>();
  private cachedBytes = 0;

  private readonly probes: ReadonlyMap<string, number>;

  constructor(private readonly instruct: Checkpoint, private readonly thinking: Checkpoint, private readonly basis: DirectionBasis, probes: readonly string[] = []) {
    this.probes = new Map(probes.map((name, i) => [name, basis.directions.length + 2 * i]));
  }

  async pass(weights: WeightSource, batch: readonly LossSequence[], batchSize: number, signal: AbortSignal | undefined): Promise<DirectionalPass> {
    const dots = new Float64Array(this.basis.directions.length + 2 * this.probes.size);
    const model = loadCausalLM(weights);
    let loss = 0;
    for (let start = 0; start < batch.length; start += batchSize) {
      throwIfCancelled(signal, 'curvature');
      const result = await model.lossAndLayerGrads(batch.slice(start, start + batchSize), async (_layer, grads) => {
        for (const [name, grad] of grads) {
          for (const { direction, delta } of await this.deltasOf(name)) dots[direction] = (dots[direction] as number) + dot(grad, delta);
        }
      }, { sequenceCount: batch.length, headGrads: true });
      loss += result.loss;
    }
    return { loss, dots };
  }

  private async deltasOf(name: string): Promise<TensorDeltas> {
    const cached = this.cache.get(name);
    if (cached !== undefined) return cached;
    if (!this.thinking.tensors.has(name)) return []; // copied from Instruct: the edit does not move it
    const { shape } = this.instruct.tensor(name);
    const thinkingShape = this.thinking.tensor(name).shape;
    if (thinkingShape.length !== shape.length || thinkingShape.some((d, i) => d !== shape[i])) return []; // θ_I kept (editPair)
    const thetaI = await this.instruct.readFloat32(name);
    const thetaT = await this.thinking.readFloat32(name);
    const probe = this.probes.get(name);
    const deltas = probe === undefined ? this.basis.deltasOf(name, shape, thetaI, thetaT) : [{ direction: probe, delta: thetaI }, { direction: probe + 1, delta: thetaT }];
    const bytes = deltas.reduce((sum, d) => sum + d.delta.byteLength, 0);
    if (this.cachedBytes + bytes <= DELTA_CACHE_BYTES) {
      this.cache.set(name, deltas);
      this.cachedBytes += bytes;
    }
    return deltas;
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`gradient of ${a.length} values against a direction of ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
