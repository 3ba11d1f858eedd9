/**
 * One tensor's unit directions Δ_b from the pair, as a directional pass dots them
 * (direction-deltas.ts keeps them; delta-worker.ts computes them on another thread).
 *
 *   movesTensor(pair, basis, name, isRouter) → whether the tensor has any Δ
 *   routerSlots(B, routers) → each router's first slot in dots
 *   await tensorDeltas(pair, basis, name, { routerSlot?, reads?, rowwise? }) → TensorDelta[]   (sparse-rows.ts's form)
 *   new PairReads()   one thread's reusable θ_I/θ_T arrays for the layer tensors it computes one after another
 *
 * A layer tensor's Δ needs the whole tensor (T(δ)'s quantile): θ_I and θ_T are read whole. The
 * embedding and lm_head rules are row-local (edit-directions.ts movedRows): for a think
 * direction the think rows alone are read, and for lm_head.blend the lm_head is read
 * ROW_BLOCK_VALUES at a time, its Δ gathered row by row (SparseRowCollector) — no vocab-sized
 * θ_I, θ_T or intermediate array, only the Δ that is kept; with `rowwise` it is not kept at all
 * (the curvature passes form it by rows as they read it: rowwise-deltas.ts). A router
 * (routerSlot given) is no direction: its "Δ" are θ_I and θ_T.
 * With `reads`, a layer tensor's θ_I and θ_T are read into the same two arrays every time:
 * fresh pages cost about as much as widening them (their first touch), and a layer's Δ
 * (craneDelta's own array) never keeps them.
 * The values are the whole-tensor edit's, bit for bit: basis.deltasOf's for a layer tensor or the
 * final norm, and for the embedding and lm_head those of basis.rowDeltaOf over all rows in one call
 * (deltasOf refuses a row-local tensor; crane/testing/whole-deltas.ts is that whole edit, which
 * tensor-deltas.test compares the row blocks against).
 */
import type { DirectionBasis, RowSet } from '../crane/edit-directions.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { blockRowsFor, ROW_BLOCK_VALUES, rowBlocks, rowIds } from '../model/row-block-upload.ts';
import type { TensorDelta } from './delta-store.ts';
import { SparseRowCollector, sparseRows } from './sparse-rows.ts';

export interface CheckpointPair {
  readonly instruct: Checkpoint;
  readonly thinking: Checkpoint;
}

/** False for a tensor the edit leaves at θ_I: absent from Thinking (copied), another shape (editPair keeps θ_I), or no direction and no router. */
export function movesTensor(pair: CheckpointPair, basis: DirectionBasis, name: string, isRouter: boolean): boolean {
  if (!pair.thinking.tensors.has(name)) return false;
  const { shape } = pair.instruct.tensor(name);
  const thinkingShape = pair.thinking.tensor(name).shape;
  if (thinkingShape.length !== shape.length || thinkingShape.some((d, i) => d !== shape[i])) return false;
  return isRouter || basis.directionsOf(name).length > 0;
}

/** Each router's first slot in a pass's dots: after the B directions, two per router in the given order. */
export function routerSlots(directionCount: number, routers: readonly string[]): ReadonlyMap<string, number> {
  return new Map(routers.map((name, i) => [name, directionCount + 2 * i]));
}

/** θ_I and θ_T arrays reused tensor after tensor (never by two computations at once), grown to the largest. */
export class PairReads {
  private instruct = new Float32Array(0);
  private thinking = new Float32Array(0);

  async read(pair: CheckpointPair, name: string): Promise<[Float32Array, Float32Array]> {
    const size = pair.instruct.tensor(name).shape.reduce((a, b) => a * b, 1);
    if (this.instruct.length < size) [this.instruct, this.thinking] = [new Float32Array(size), new Float32Array(size)];
    return [await pair.instruct.readFloat32(name, this.instruct), await pair.thinking.readFloat32(name, this.thinking)];
  }
}

export interface TensorDeltaOptions {
  /** The router's first slot in dots, for a router. */
  readonly routerSlot?: number | undefined;
  /** Where a layer tensor's θ_I and θ_T are read (fresh arrays without). */
  readonly reads?: PairReads;
  /** How many values an lm_head block holds (tests make it small, so blocks end mid-tensor). */
  readonly blockValues?: number;
  /** Leave out the directions over every row (lm_head.blend): the passes form them by rows where they read them (rowwise-deltas.ts). */
  readonly rowwise?: boolean;
}

export async function tensorDeltas(pair: CheckpointPair, basis: DirectionBasis, name: string, options: TensorDeltaOptions = {}): Promise<TensorDelta[]> {
  const { routerSlot, reads, blockValues = ROW_BLOCK_VALUES, rowwise = false } = options;
  const { shape } = pair.instruct.tensor(name);
  if (routerSlot !== undefined) {
    const [thetaI, thetaT] = [await pair.instruct.readFloat32(name), await pair.thinking.readFloat32(name)];
    return [{ direction: routerSlot, values: thetaI }, { direction: routerSlot + 1, values: thetaT }];
  }
  const rowCount = shape[0] ?? 0;
  const moved = basis.movedRows(name, rowCount);
  if (moved === undefined) {
    const [thetaI, thetaT] = reads === undefined ? [await pair.instruct.readFloat32(name), await pair.thinking.readFloat32(name)] : await reads.read(pair, name);
    return basis.deltasOf(name, shape, thetaI, thetaT).map(({ direction, delta }) => sparseRows(direction, delta, shape));
  }
  const width = shape.slice(1).reduce((a, b) => a * b, 1);
  const deltas: TensorDelta[] = [];
  for (const [direction, rows] of moved) {
    if (rowwise && rows === 'all') continue;
    const collector = new SparseRowCollector(direction, rowCount, width);
    const add = async (set: RowSet, ids: ArrayLike<number>): Promise<void> => {
      const [thetaI, thetaT] = [await pair.instruct.readRowsFloat32(name, ids), await pair.thinking.readRowsFloat32(name, ids)];
      collector.add(set, basis.rowDeltaOf(name, direction, set, thetaI, thetaT));
    };
    if (rows !== 'all') {
      if (rows.length > 0) await add(rows, rows);
    } else {
      for (const { first, count } of rowBlocks(rowCount, blockRowsFor(width, blockValues))) await add({ first, count }, rowIds(first, count));
    }
    deltas.push(collector.result());
  }
  return deltas;
}
