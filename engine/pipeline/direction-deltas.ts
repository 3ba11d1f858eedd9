/**
 * Which unit directions Δ_b move a tensor, and their values: what a directional pass dots its
 * gradients with (directional-gradients.ts).
 *
 *   new ComputedDeltas(instruct, thinking, basis, store, routers?)   main thread: Δ from the pair, kept by the store
 *   await deltas.prepare(signal)        the special tensors' Δ now, before a model holds memory
 *   await deltas.computeAll(signal)     every tensor's Δ now, on this thread and a worker (then store.seal() for the passes' threads)
 *   await SealedDirections.open(sealed, size, directionCount, rowwise?)   a worker: the sealed store read back
 *
 * `routers` are tensors (which are no direction) whose ∇L·θ_I and ∇L·θ_T are appended to dots,
 * two per router in the given order after the B directions: their "Δ" are θ_I and θ_T.
 * A Δ that is zero on most rows (the think rows of a 151,936-row embedding) is kept as its
 * nonzero rows only (sparse-rows.ts). How one tensor's Δ is computed: tensor-deltas.ts.
 * computeAll splits the tensors, largest first, between this thread and one worker thread
 * (delta-threads.ts), each Δ the same bits either way; the store keeps them all but a Δ over every
 * row of a row-local tensor (an untied lm_head's blend, vocab-sized), which no thread keeps: each
 * pass forms it by rows where it reads it (rowwise-deltas.ts; a worker from its own handles on the
 * pair and the basis rebuilt from rowwiseRecipe), the same float32 values.
 */
import type { DirectionBasis } from '../crane/edit-directions.ts';
import { classifyTensor } from '../crane/tensor-classification.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { DeltaStore, type SealedDeltas, type TensorDelta } from './delta-store.ts';
import { inDirectionOrder, rowwiseDeltas, type PassDelta, type RowwiseDelta } from './rowwise-deltas.ts';
import { deltasOnTwoThreads } from './delta-threads.ts';
import { throwIfCancelled } from './progress.ts';
import { movesTensor, PairReads, routerSlots, tensorDeltas, type CheckpointPair, type TensorDeltaOptions } from './tensor-deltas.ts';

export interface DirectionDeltas {
  /** Length of a pass's dots: the B directions, then two per router. */
  readonly size: number;
  /** The directions (< B) along which tensor `name` moves; none for a router or a kept tensor. */
  directionsOf(name: string): readonly number[];
  /** Δ of `name` along each of its directions (and a router's θ_I, θ_T), [] when it has none; a Δ over every row formed by rows. */
  deltasOf(name: string): Promise<readonly PassDelta[]>;
}

export class ComputedDeltas implements DirectionDeltas {
  readonly size: number;
  /** Each router's first slot in dots. */
  private readonly routerSlots: ReadonlyMap<string, number>;
  private readonly pair: CheckpointPair;
  private readonly rowwise = new Map<string, RowwiseDelta[]>();

  constructor(private readonly instruct: Checkpoint, private readonly thinking: Checkpoint, private readonly basis: DirectionBasis, private readonly store: DeltaStore, private readonly routers: readonly string[] = []) {
    this.routerSlots = routerSlots(basis.directions.length, routers);
    this.size = basis.directions.length + 2 * routers.length;
    this.pair = { instruct, thinking };
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

  /** Every tensor's Δ, so the store holds all a pass reads: the largest first, on this thread and a worker thread. */
  async computeAll(signal: AbortSignal | undefined): Promise<void> {
    const names = [...this.instruct.tensors.keys()].filter((name) => this.moves(name));
    const size = (name: string) => this.instruct.tensor(name).shape.reduce((a, b) => a * b, 1);
    const largestFirst = names.sort((a, b) => size(b) - size(a));
    const setup = { instruct: this.instruct.dir, thinking: this.thinking.dir, recipe: this.basis.recipe, routers: this.routers };
    const reads = new PairReads(); // this thread's tensors come one after another
    await deltasOnTwoThreads(setup, largestFirst, (name) => this.kept(name, { reads }), (name, deltas) => this.store.get(name, () => Promise.resolve(deltas)), signal);
  }

  async deltasOf(name: string): Promise<readonly PassDelta[]> {
    if (!this.moves(name)) return [];
    let rowwise = this.rowwise.get(name);
    if (rowwise === undefined) this.rowwise.set(name, (rowwise = rowwiseDeltas(this.pair, this.basis, name)));
    return inDirectionOrder(await this.kept(name), rowwise, this.basis.directionsOf(name));
  }

  /** The Δ kept (all but the rowwise ones); computeAll's options: a layer tensor's θ_I/θ_T read into `reads`. */
  private kept(name: string, options: Pick<TensorDeltaOptions, 'reads'> = {}): Promise<TensorDelta[]> {
    return this.store.get(name, () => tensorDeltas(this.pair, this.basis, name, { routerSlot: this.routerSlots.get(name), rowwise: true, ...options }));
  }

  private moves(name: string): boolean {
    return movesTensor(this.pair, this.basis, name, this.routerSlots.has(name));
  }
}

/** Where a worker forms the rowwise Δ: its own handles on the pair, and the basis rebuilt from rowwiseRecipe. */
export interface RowwiseSource {
  readonly pair: CheckpointPair;
  readonly basis: DirectionBasis;
}

/** A worker thread's view of a sealed store: the Δ the main thread computed, read back bit-identical, and the rowwise ones formed here. */
export class SealedDirections implements DirectionDeltas {
  private constructor(readonly size: number, private readonly store: DeltaStore, private readonly directions: ReadonlyMap<string, readonly number[]>, private readonly rowwise: ReadonlyMap<string, readonly RowwiseDelta[]>) {}

  /** `directionCount`: B, the first slots of dots (the rest are the routers'); `rowwise`: where a tensor's Δ over every row is formed (none: it has none). */
  static async open(sealed: SealedDeltas, size: number, directionCount: number, rowwise?: RowwiseSource): Promise<SealedDirections> {
    const formed = new Map(sealed.tensors.map(([name]) => [name, rowwise === undefined ? [] : rowwiseDeltas(rowwise.pair, rowwise.basis, name)]));
    const directions = new Map(sealed.tensors.map(([name, deltas]) => {
      const stored = deltas.map((d) => d.direction).filter((b) => b < directionCount);
      const rowwiseOnes = (formed.get(name) ?? []).map((d) => d.direction);
      // in the basis's order, as deltasOf gives them
      return [name, rowwiseOnes.length === 0 ? stored : (rowwise?.basis.directionsOf(name) ?? []).filter((b) => stored.includes(b) || rowwiseOnes.includes(b))];
    }));
    return new SealedDirections(size, await DeltaStore.openSealed(sealed), directions, formed);
  }

  directionsOf(name: string): readonly number[] {
    return this.directions.get(name) ?? [];
  }

  async deltasOf(name: string): Promise<readonly PassDelta[]> {
    if (!this.directions.has(name)) return [];
    const stored = await this.store.get(name, () => Promise.reject(new Error(`internal: ${name} is in the sealed Δ index but not readable`)));
    return inDirectionOrder(stored, this.rowwise.get(name) ?? [], this.directionsOf(name));
  }
}
