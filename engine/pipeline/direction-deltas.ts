/**
 * Which unit directions Δ_b move a tensor, and their values: what a directional pass dots its
 * gradients with (directional-gradients.ts).
 *
 *   new ComputedDeltas(instruct, thinking, basis, store, routers?)   main thread: Δ from the pair, kept by the store
 *   await deltas.prepare(signal)        the special tensors' Δ now, before a model holds memory
 *   await deltas.computeAll(signal)     every tensor's Δ now (then store.seal() for worker threads)
 *   await SealedDirections.open(sealed, size, directionCount)   a worker: the sealed store read back
 *
 * `routers` are tensors (which are no direction) whose ∇L·θ_I and ∇L·θ_T are appended to dots,
 * two per router in the given order after the B directions: their "Δ" are θ_I and θ_T.
 * A Δ that is zero on most rows (the think rows of a 151,936-row embedding) is kept as its
 * nonzero rows only.
 */
import type { DirectionBasis } from '../crane/edit-directions.ts';
import { classifyTensor } from '../crane/tensor-classification.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { DeltaStore, type SealedDeltas, type TensorDelta } from './delta-store.ts';
import { throwIfCancelled } from './progress.ts';

export interface DirectionDeltas {
  /** Length of a pass's dots: the B directions, then two per router. */
  readonly size: number;
  /** The directions (< B) along which tensor `name` moves; none for a router or a kept tensor. */
  directionsOf(name: string): readonly number[];
  /** Δ of `name` along each of its directions (and a router's θ_I, θ_T), [] when it has none. */
  deltasOf(name: string): Promise<TensorDelta[]>;
}

export class ComputedDeltas implements DirectionDeltas {
  readonly size: number;
  /** Each router's first slot in dots. */
  private readonly routerSlots: ReadonlyMap<string, number>;

  constructor(private readonly instruct: Checkpoint, private readonly thinking: Checkpoint, private readonly basis: DirectionBasis, private readonly store: DeltaStore, routers: readonly string[] = []) {
    this.routerSlots = new Map(routers.map((name, i) => [name, basis.directions.length + 2 * i]));
    this.size = basis.directions.length + 2 * routers.length;
  }

  directionsOf(name: string): readonly number[] {
    return this.basis.directionsOf(name);
  }

  /** Computes and keeps the embedding's and lm_head's Δ now, before a model holds memory of its own. */
  async prepare(signal: AbortSignal | undefined): Promise<void> {
    for (const name of this.instruct.tensors.keys()) {
      const { rule } = classifyTensor(name);
      if (rule !== 'embedding' && rule !== 'lm_head') continue;
      throwIfCancelled(signal, 'curvature');
      await this.deltasOf(name);
    }
  }

  /** Every tensor's Δ, so the store holds all a pass reads (prepare's special tensors first). */
  async computeAll(signal: AbortSignal | undefined): Promise<void> {
    await this.prepare(signal);
    for (const name of this.instruct.tensors.keys()) {
      throwIfCancelled(signal, 'curvature');
      await this.deltasOf(name);
    }
  }

  async deltasOf(name: string): Promise<TensorDelta[]> {
    if (!this.thinking.tensors.has(name)) return []; // copied from Instruct: the edit does not move it
    const { shape } = this.instruct.tensor(name);
    const thinkingShape = this.thinking.tensor(name).shape;
    if (thinkingShape.length !== shape.length || thinkingShape.some((d, i) => d !== shape[i])) return []; // θ_I kept (editPair)
    const router = this.routerSlots.get(name);
    if (router === undefined && this.basis.directionsOf(name).length === 0) return [];
    return this.store.get(name, async () => {
      const thetaI = await this.instruct.readFloat32(name);
      const thetaT = await this.thinking.readFloat32(name);
      return router === undefined
        ? this.basis.deltasOf(name, shape, thetaI, thetaT).map(({ direction, delta }) => sparseRows(direction, delta, shape))
        : [{ direction: router, values: thetaI }, { direction: router + 1, values: thetaT }];
    });
  }
}

/** A worker thread's view of a sealed store: the Δ the main thread computed, read back bit-identical. */
export class SealedDirections implements DirectionDeltas {
  private constructor(readonly size: number, private readonly store: DeltaStore, private readonly directions: ReadonlyMap<string, readonly number[]>) {}

  /** `directionCount`: B, the first slots of dots (the rest are the routers'). */
  static async open(sealed: SealedDeltas, size: number, directionCount: number): Promise<SealedDirections> {
    const directions = new Map(sealed.tensors.map(([name, deltas]) => [name, deltas.map((d) => d.direction).filter((b) => b < directionCount)]));
    return new SealedDirections(size, await DeltaStore.openSealed(sealed), directions);
  }

  directionsOf(name: string): readonly number[] {
    return this.directions.get(name) ?? [];
  }

  async deltasOf(name: string): Promise<TensorDelta[]> {
    if (!this.directions.has(name)) return [];
    return this.store.get(name, () => Promise.reject(new Error(`internal: ${name} is in the sealed Δ index but not readable`)));
  }
}

/** Δ as its nonzero rows when they are fewer than half of a matrix's rows; whole otherwise. */
function sparseRows(direction: number, delta: Float32Array, shape: readonly number[]): TensorDelta {
  const rowCount = shape.length === 2 ? (shape[0] as number) : 0;
  if (rowCount < 2) return { direction, values: delta };
  const width = delta.length / rowCount;
  const rows: number[] = [];
  for (let r = 0; r < rowCount && rows.length * 2 < rowCount; r++) {
    for (let i = r * width; i < (r + 1) * width; i++) {
      if (delta[i] !== 0) {
        rows.push(r);
        break;
      }
    }
  }
  if (rows.length * 2 >= rowCount) return { direction, values: delta };
  const values = new Float32Array(rows.length * width);
  rows.forEach((r, i) => values.set(delta.subarray(r * width, (r + 1) * width), i * width));
  return { direction, values, rows: Int32Array.from(rows), width };
}
