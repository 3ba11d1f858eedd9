/**
 * The directions over every row of a row-local tensor (an untied lm_head's blend: every
 * unprotected non-think row's δ = θ_T − θ_I scaled, crane/edit-directions.ts) formed by rows when
 * a pass reads them, instead of kept: at Qwen3-0.6B shapes that Δ is 622 MB, which the curvature
 * workers held through every pass (issue 14), and each use reads it by rows anyway — a chunk of the
 * head's dots a block at a time (model/head-directions.ts), a probe's moved lm_head a block of its
 * on-demand reads at a time (directional-gradients.ts).
 *
 *   rowwiseDeltas(pair, basis, name) → RowwiseDelta[]   the tensor's every-row directions (none for most tensors)
 *   await delta.rowsOf(ids, θ_I rows?) → Δ at ids, [ids.length · width]
 *
 * rowsOf reads θ_I's (unless given: the caller's pristine rows) and θ_T's rows at ids and takes
 * basis.rowDeltaOf over them: the rule treats each row on its own, so these are the float32
 * values of the whole tensor's Δ at those rows, whatever rows are asked together
 * (tensor-deltas.ts gathers the same values a block at a time; rowwise-deltas.test compares them).
 */
import type { DirectionBasis, DirectionRecipe, RowSet } from '../crane/edit-directions.ts';
import type { RowwiseDirection } from '../model/head-directions.ts';
import type { TensorDelta } from './delta-store.ts';
import type { CheckpointPair } from './tensor-deltas.ts';

export interface RowwiseDelta extends RowwiseDirection {
  readonly direction: number;
  /** `thetaI`: θ_I's rows at ids when the caller has them (left as they are), else read here. */
  readonly rowsOf: (ids: ArrayLike<number>, thetaI?: Float32Array) => Promise<Float32Array>;
}

/** What a directional pass dots and moves along: a Δ computed once (delta-store.ts), or one formed by rows. */
export type PassDelta = TensorDelta | RowwiseDelta;

export function isRowwiseDelta(delta: PassDelta): delta is RowwiseDelta {
  return 'rowsOf' in delta;
}

/** The directions of `name` whose Δ can be nonzero on every row (basis.movedRows 'all'), each formed by rows from `pair`. */
export function rowwiseDeltas(pair: CheckpointPair, basis: DirectionBasis, name: string): RowwiseDelta[] {
  const moved = basis.movedRows(name, pair.instruct.tensor(name).shape[0] ?? 0);
  const every = [...(moved ?? [])].filter(([, rows]) => rows === 'all').map(([direction]) => direction);
  return every.map((direction) => {
    const rowsOf = async (ids: ArrayLike<number>, thetaI?: Float32Array): Promise<Float32Array> => {
      const set = rowSetOf(ids);
      if (set === undefined) return scattered(ids, rowsOf);
      const [instruct, thinking] = [thetaI ?? (await pair.instruct.readRowsFloat32(name, ids)), await pair.thinking.readRowsFloat32(name, ids)];
      return basis.rowDeltaOf(name, direction, set, instruct, thinking);
    };
    return { direction, rowsOf };
  });
}

/** `ids` as rowDeltaOf's RowSet: consecutive ones as a range, ascending ones listed; undefined when out of order or repeated. */
function rowSetOf(ids: ArrayLike<number>): RowSet | undefined {
  const list = Array.from(ids);
  if (list.some((id, k) => k > 0 && id <= (list[k - 1] as number))) return undefined;
  const first = list[0] ?? 0;
  return list.every((id, k) => id === first + k) ? { first, count: list.length } : list;
}

/** Δ at ids in any order (a batch's labels): formed once per distinct row, ascending, then placed at each id. */
async function scattered(ids: ArrayLike<number>, rowsOf: (ids: ArrayLike<number>) => Promise<Float32Array>): Promise<Float32Array> {
  const distinct = [...new Set(Array.from(ids))].sort((a, b) => a - b);
  const values = await rowsOf(distinct);
  const width = distinct.length === 0 ? 0 : values.length / distinct.length;
  const at = new Map(distinct.map((id, k) => [id, k]));
  const out = new Float32Array(ids.length * width);
  for (let i = 0; i < ids.length; i++) {
    const k = at.get(ids[i] as number) as number;
    out.set(values.subarray(k * width, (k + 1) * width), i * width);
  }
  return out;
}

/** A tensor's stored and rowwise Δ in the order of its directions (`order`: basis.directionsOf), as a pass adds and dots them. */
export function inDirectionOrder(stored: readonly TensorDelta[], rowwise: readonly RowwiseDelta[], order: readonly number[]): readonly PassDelta[] {
  if (rowwise.length === 0) return stored;
  const rank = (delta: PassDelta) => order.indexOf(delta.direction);
  return [...stored, ...rowwise].sort((a, b) => rank(a) - rank(b));
}

/**
 * The recipe a curvature worker rebuilds its basis from to form rowwise Δ: the same directions,
 * in the same order (they come from the tensor names and tokens alone), without the projectors and
 * gate table, which only the layer tensors' Δ use and which would be copied into every worker.
 */
export function rowwiseRecipe(recipe: DirectionRecipe): DirectionRecipe {
  return { ...recipe, projectors: new Map(), gate: null };
}
