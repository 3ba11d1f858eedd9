/**
 * Gradients along the edit's directions, without keeping a gradient: one backward pass of a set's
 * loss at some weights, dotted with every unit direction Δ_b as the layers stream by.
 *
 *   const along = new DirectionalGradients(instruct, deltas)   deltas: direction-deltas.ts
 *   along.moved(steps) → WeightSource                θ_I + Σ_b steps[b]·Δ_b
 *   await along.pass(weights, batch, batchSize, signal) → { loss, sequenceLosses, dots }   dots[b] = ∇L(weights)·Δ_b
 *
 * The final norm's gradient comes with the layers'; the embedding's and lm_head's Δ go to the
 * backward itself (`headDirections`, model/head-directions.ts), which returns their dots without
 * a vocab-sized gradient; with tied embeddings the embedding's dot takes both of its uses, which
 * is what moving its think rows does to the loss.
 * The unit directions are the same for every pass, so each tensor's Δ_b is computed once and
 * kept (direction-deltas.ts, delta-store.ts), on the main thread or read back from a sealed
 * store on a worker thread (curvature-workers.ts): the same values either way — but for a Δ over
 * every row of a vocab-sized weight (an untied lm_head's blend), formed by rows where it is read
 * (rowwise-deltas.ts): a block of the head's rows at a time for its dots, the rows a probe's
 * moved lm_head is read by (from θ_I's rows as read, before any step moves them).
 * `moved` edits only the tensors whose directions have a nonzero step (the others are θ_I as
 * read), with the same cached Δ the dots use: a probe that moves one layer group costs that
 * group's Δ, not the whole edit. A layer read is moved in the array the reader lends
 * (model/weights.ts readUploaded: no fresh pages per tensor and pass), and the embedding lookup
 * reads and moves the batch's rows alone (model/embedding-rows.ts), each value the float32
 * θ_I + step·Δ of a whole read: no vocab-sized read or copy per probe pass.
 * The layer gradients are lent (lossAndLayerGrads lendGrads: the same arrays every layer, no
 * fresh pages per layer and pass): each is dotted before the callback returns.
 * Cancellation is checked at every layer's gradients and every weight read, so an abort stops a
 * pass within a layer.
 */
import { loadCausalLM } from '../model/causal-lm.ts';
import { dot64 } from '../model/head-directions.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import { blockRowsFor, rowBlocks, rowIds } from '../model/row-block-upload.ts';
import { EMBED_NAME, LM_HEAD_NAME, type WeightSource } from '../model/weights.ts';
import type { TensorDelta } from './delta-store.ts';
import type { DirectionDeltas } from './direction-deltas.ts';
import { isRowwiseDelta, type PassDelta, type RowwiseDelta } from './rowwise-deltas.ts';
import { cancellableSource } from './edited-source.ts';
import { throwIfCancelled } from './progress.ts';

export interface DirectionalPass {
  /** The set's objective at these weights (mean over sequences of the per-sequence mean CE). */
  readonly loss: number;
  /** Each sequence's mean CE, in batch order: bit-identical to sequenceLosses' at the same weights (the anchors' θ_I losses). */
  readonly sequenceLosses: readonly number[];
  readonly dots: Float64Array;
}

export class DirectionalGradients {
  /** `instruct`: θ_I, the checkpoint or a view of it whose tied embedding is shared read-only (shared-weights.ts; an untied lm_head is read by rows). */
  constructor(private readonly instruct: WeightSource, private readonly deltas: DirectionDeltas) {}

  moved(steps: Float64Array, signal: AbortSignal | undefined): WeightSource {
    const still = (name: string): boolean => this.deltas.directionsOf(name).every((b) => steps[b] === 0);
    const moving = async (name: string): Promise<{ delta: PassDelta; step: number }[]> => (await this.deltas.deltasOf(name)).map((delta) => ({ delta, step: steps[delta.direction] ?? 0 })).filter(({ step }) => step !== 0);
    const readRows = this.instruct.readRowsFloat32?.bind(this.instruct);
    return cancellableSource({
      dir: this.instruct.dir,
      config: this.instruct.config,
      tensors: this.instruct.tensors,
      tensor: (name) => this.instruct.tensor(name),
      // Into the reader's reused array where it lends one (a layer read: no fresh pages per tensor and pass).
      readFloat32: async (name, into) => {
        const read = await this.instruct.readFloat32(name, into);
        if (still(name)) return read;
        // a shared tensor is every worker's θ_I: moved on a copy
        const thetaI = read.buffer instanceof SharedArrayBuffer ? copyOf(read, into) : read;
        const width = this.instruct.tensor(name).shape.slice(1).reduce((a, b) => a * b, 1);
        for (const { delta, step } of await moving(name)) {
          if (isRowwiseDelta(delta)) await addRowwise(thetaI, width, delta, step);
          else addInPlace(thetaI, delta, step);
        }
        return thetaI;
      },
      // Rows only where θ_I's source reads rows (each value edited as readFloat32 edits it: no vocab-sized read or copy per
      // pass); else none, so the embedding lookup and the head read whole (model/embedding-rows.ts, model/head.ts) instead
      // of reading the whole tensor for every block of rows.
      ...(readRows === undefined ? {} : {
        readRowsFloat32: async (name: string, ids: ArrayLike<number>) => {
          const rows = await readRows(name, ids);
          if (still(name)) return rows;
          const width = this.instruct.tensor(name).shape.slice(1).reduce((a, b) => a * b, 1);
          const steps = await moving(name);
          // a rowwise Δ from θ_I's rows as read, before any step moves them
          const formed = await Promise.all(steps.map(({ delta }) => (isRowwiseDelta(delta) ? delta.rowsOf(ids, rows) : undefined)));
          steps.forEach(({ delta, step }, k) => {
            const values = formed[k];
            if (values !== undefined) addInPlace(rows, { direction: delta.direction, values }, step);
            else addAtRows(rows, ids, width, delta as TensorDelta, step);
          });
          return rows;
        },
      }),
    }, signal, 'curvature');
  }

  async pass(weights: WeightSource, batch: readonly LossSequence[], batchSize: number, signal: AbortSignal | undefined): Promise<DirectionalPass> {
    const dots = new Float64Array(this.deltas.size);
    const model = loadCausalLM(cancellableSource(weights, signal, 'curvature'));
    let loss = 0;
    const sequenceLosses: number[] = [];
    for (let start = 0; start < batch.length; start += batchSize) {
      throwIfCancelled(signal, 'curvature');
      let headSlots: number[] = [];
      const result = await model.lossAndLayerGrads(batch.slice(start, start + batchSize), async (_layer, grads) => {
        throwIfCancelled(signal, 'curvature');
        for (const [name, grad] of grads) {
          for (const delta of await this.deltas.deltasOf(name)) dots[delta.direction] = (dots[delta.direction] as number) + dot(grad, delta);
        }
      }, {
        sequenceCount: batch.length,
        lendGrads: true,
        headDirections: async () => {
          const [embedding, lmHead] = [await this.deltas.deltasOf(EMBED_NAME), await this.deltas.deltasOf(LM_HEAD_NAME)];
          headSlots = [...embedding, ...lmHead].map((d) => d.direction);
          return { embedding, lmHead };
        },
      });
      [...(result.headDots?.embedding ?? []), ...(result.headDots?.lmHead ?? [])].forEach((d, i) => (dots[headSlots[i] as number] = (dots[headSlots[i] as number] as number) + d));
      loss += result.loss;
      sequenceLosses.push(...result.sequenceLosses);
    }
    return { loss, sequenceLosses, dots };
  }
}

/** `read` copied into `into` where it is lent (and long enough), else into a fresh array. */
function copyOf(read: Float32Array, into: Float32Array | undefined): Float32Array {
  if (into === undefined || into.length < read.length) return read.slice();
  const copy = into.subarray(0, read.length);
  copy.set(read);
  return copy;
}

/** addInPlace on the rows `ids` of a tensor ([ids.length · width]): each value gets the same float32 θ + step·Δ. */
function addAtRows(rows: Float32Array, ids: ArrayLike<number>, width: number, delta: TensorDelta, step: number): void {
  const at = delta.rows === undefined ? undefined : new Map(Array.from(delta.rows, (r, k) => [r, k]));
  const { values } = delta;
  for (let i = 0; i < ids.length; i++) {
    const k = at === undefined ? ids[i] : at.get(ids[i] as number);
    if (k === undefined) continue;
    for (let j = 0; j < width; j++) rows[i * width + j] = (rows[i * width + j] as number) + step * (values[k * width + j] as number);
  }
}

/** addInPlace of a rowwise Δ over a whole tensor, formed a block of rows at a time (from θ_I's rows as stored, whatever `theta` holds). */
async function addRowwise(theta: Float32Array, width: number, delta: RowwiseDelta, step: number): Promise<void> {
  const rowCount = width === 0 ? 0 : theta.length / width;
  for (const { first, count } of rowBlocks(rowCount, blockRowsFor(width))) {
    const values = await delta.rowsOf(rowIds(first, count));
    addInPlace(theta.subarray(first * width, (first + count) * width), { direction: delta.direction, values }, step);
  }
}

/** θ += step·Δ, in float32 per element as θ_I + ε·Δ_b always was. */
function addInPlace(theta: Float32Array, delta: TensorDelta, step: number): void {
  const { values, rows, width } = delta;
  if (rows === undefined || width === undefined) {
    for (let i = 0; i < theta.length; i++) theta[i] = (theta[i] as number) + step * (values[i] as number);
    return;
  }
  rows.forEach((r, k) => {
    for (let j = 0; j < width; j++) theta[r * width + j] = (theta[r * width + j] as number) + step * (values[k * width + j] as number);
  });
}

function dot(grad: Float32Array, delta: PassDelta): number {
  // a rowwise Δ is a head weight's, whose dots the head pass takes (headDirections): no layer gradient meets it
  if (isRowwiseDelta(delta)) throw new Error(`internal: a layer gradient dotted with the rowwise Δ of direction ${delta.direction}`);
  const { values, rows, width } = delta;
  if (rows === undefined || width === undefined) {
    if (grad.length !== values.length) throw new RangeError(`gradient of ${grad.length} values against a direction of ${values.length}`);
    return dot64(grad, values);
  }
  if (grad.length % width !== 0) throw new RangeError(`gradient of ${grad.length} values against rows of ${width}`);
  let sum = 0;
  rows.forEach((r, k) => {
    for (let j = 0; j < width; j++) sum += (grad[r * width + j] as number) * (values[k * width + j] as number);
  });
  return sum;
}
