/**
 * The CRANE edit as a sum of block directions: θ_M − θ_I = Σ_b c_b·Δ_b, each Δ_b fixed by the
 * stage settings (q, τ, k, the toggles) and each c_b a number the Tune sliders move.
 *
 *   const basis = editDirections(tensorNames, unitSettings, tokens, context)
 *   basis.deltasOf(name, shape, θ_I, θ_T) → [{ direction, delta }]   Δ_b of a layer tensor or the final norm, unit coefficient
 *   basis.directionsOf(name) → number[]                               the directions that move it (nothing computed)
 *   basis.movedRows(name, rowCount) → direction → rows | 'all'        a row-local tensor's rows each Δ_b can move
 *   basis.rowDeltaOf(name, direction, rows, θ_I rows, θ_T rows) → Δ_b  of those rows alone
 *   editDirectionsOf(basis.recipe)                                   the same basis on another thread (plain data)
 *
 * Directions and their coefficients:
 *   - `attention@3`, `ffn@3`, … (one per coarse layer block, crane rule): Δ = Π(T(δ)) with S = 1,
 *     c = α·S of the block;
 *   - `final_norm`: T(δ) of the final norm, c = α·S of the global norm block;
 *   - `embed.think`: the <think>/</think> embedding rows' δ, c = thinkRows;
 *   - `lm_head.think` / `lm_head.blend` (untied lm_head only): the think rows' δ, c = thinkRows;
 *     every other unprotected row's δ, c = lmHeadScale (protected rows stay θ_I).
 * Routers are not a direction: SLERP is not c·Δ. The preview takes their first order from
 * gradient products instead (analysis/preview-router.ts).
 * The unit Δ_b go through craneDelta / editEmbedding / editLmHead themselves, so a direction is
 * exactly what the edit does to those tensors at that coefficient (f32 arithmetic).
 * The embedding and lm_head rules treat each row on its own (whether it is a think or a
 * protected row, and its own values), so their Δ can be computed a block of rows at a time
 * (rowDeltaOf, the same values as over all rows at once): the think directions' only on the think
 * rows, every other row's Δ being 0 — (θ_I + 0·δ) − θ_I = +0 for the finite weights an analysis
 * accepts (pipeline/preflight.ts) — and lm_head.blend's over every row without a vocab-sized
 * array per step; deltasOf refuses them. The layers' Δ need the whole tensor (T(δ)'s quantile is
 * per tensor): deltasOf.
 */
import type { TokenRows } from '../protocol/settings-schemas.ts';
import { craneDelta, type CraneContext, type CraneDeltaSettings } from './crane-edit.ts';
import { blockKey } from './gate-accumulator.ts';
import type { GateTable } from './gate-scales.ts';
import type { GspProjector } from './gsp-projector.ts';
import { editEmbedding, editLmHead } from './special-tensors.ts';
import { classifyTensor, projectorKey, type GspKey, type LayerGroup, type TensorClass } from './tensor-classification.ts';

/** What a direction's coefficient is at given settings. */
export type DirectionCoefficient = 'alpha-scale' | 'think-rows' | 'lm-head-scale';

/** The tensor group a direction belongs to, as the preview's breakdown names it. */
export type EditGroup = Exclude<LayerGroup, 'router'> | 'final_norm' | 'embed_think' | 'lm_head_think' | 'lm_head_blend';

export interface EditDirection {
  readonly key: string;
  readonly group: EditGroup;
  readonly coefficient: DirectionCoefficient;
}

export const FINAL_NORM_DIRECTION = 'final_norm';
const EMBED_THINK = 'embed.think';
const LM_HEAD_THINK = 'lm_head.think';
const LM_HEAD_BLEND = 'lm_head.blend';

/** The unit-α, gate-off crane settings that make craneDelta return Δ_b itself (S = 1). */
export type UnitDeltaSettings = Omit<CraneDeltaSettings, 'alpha' | 'overrideScales' | 'granularity'>;

/** Rows of a tensor: listed (ascending global indices) or `count` consecutive ones from `first`. */
export type RowSet = readonly number[] | { readonly first: number; readonly count: number };

/** One direction's Δ of a tensor. */
export interface DirectionDelta {
  readonly direction: number;
  readonly delta: Float32Array;
}

/**
 * Everything a basis is made from, as plain data (structured-clonable): a worker thread rebuilds
 * the same basis from it (editDirectionsOf). `projectors`: every projector the context gives for
 * the tensors' layers, so a Δ computed from it is the one computed from the context.
 */
export interface DirectionRecipe {
  readonly tensorNames: readonly string[];
  readonly stages: UnitDeltaSettings;
  readonly tokens: TokenRows;
  readonly gate: GateTable | null;
  readonly projectors: ReadonlyMap<string, GspProjector>;
}

export interface DirectionBasis {
  readonly directions: readonly EditDirection[];
  readonly recipe: DirectionRecipe;
  /** A tensor whose Δ needs all of it (not a row-local one: rowDeltaOf); [] when no direction moves it. */
  deltasOf(name: string, shape: readonly number[], thetaI: Float32Array, thetaT: Float32Array): DirectionDelta[];
  directionsOf(name: string): number[];
  /**
   * For a tensor whose rule treats each row on its own (embedding, lm_head): each of its
   * directions (directionsOf's order) and the rows its Δ can be nonzero on (ascending, each
   * once), or 'all'; undefined for any other tensor.
   */
  movedRows(name: string, rowCount: number): ReadonlyMap<number, readonly number[] | 'all'> | undefined;
  /**
   * Δ of a row-local tensor along one of its directions on `rows` alone: θ_I and θ_T hold those
   * rows (rows.length × width), and so does the result, written into θ_T's array (θ_T is used up).
   */
  rowDeltaOf(name: string, direction: number, rows: RowSet, thetaI: Float32Array, thetaT: Float32Array): Float32Array;
}

/** Every GspKey, so that a recipe holds each projector a layer's tensors may ask for (a new key is a compile error here). */
const GSP_KEYS = Object.keys({ attn_input: 0, ffn_input: 0, linattn_inner: 0 } satisfies Record<GspKey, 0>) as GspKey[];

export function editDirections(tensorNames: Iterable<string>, stages: UnitDeltaSettings, tokens: TokenRows, context: CraneContext): DirectionBasis {
  const names = [...tensorNames];
  const projectors = new Map<string, GspProjector>();
  for (const layer of new Set(names.map((name) => classifyTensor(name).layer))) {
    if (layer === null) continue;
    for (const key of GSP_KEYS.map((gsp) => projectorKey(layer, gsp))) {
      const projector = context.projector(key);
      if (projector !== undefined) projectors.set(key, projector);
    }
  }
  return editDirectionsOf({ tensorNames: names, stages, tokens, gate: context.gate, projectors });
}

export function editDirectionsOf(recipe: DirectionRecipe): DirectionBasis {
  const { tensorNames, stages, tokens } = recipe;
  const context: CraneContext = { gate: recipe.gate, projector: (key) => recipe.projectors.get(key) };
  const index = new Map<string, number>();
  const directions: EditDirection[] = [];
  const add = (key: string, group: EditGroup, coefficient: DirectionCoefficient) => {
    if (index.has(key)) return;
    index.set(key, directions.length);
    directions.push({ key, group, coefficient });
  };
  for (const name of tensorNames) {
    const tensor = classifyTensor(name);
    if (tensor.rule === 'crane' && tensor.layer !== null) add(layerKey(tensor), tensor.group as EditDirection['group'], 'alpha-scale');
    else if (tensor.group === 'final_norm') add(FINAL_NORM_DIRECTION, 'final_norm', 'alpha-scale');
    else if (tensor.rule === 'embedding' && tokens.think.length > 0) add(EMBED_THINK, 'embed_think', 'think-rows');
    else if (tensor.rule === 'lm_head') {
      if (tokens.think.length > 0) add(LM_HEAD_THINK, 'lm_head_think', 'think-rows');
      add(LM_HEAD_BLEND, 'lm_head_blend', 'lm-head-scale');
    }
  }
  const unit: CraneDeltaSettings = { ...stages, alpha: 1, stages: { ...stages.stages, gate: false }, overrideScales: {}, granularity: 'coarse' };
  const at = (key: string) => index.get(key) ?? -1;

  const directionsOf = (name: string): number[] => {
    const tensor = classifyTensor(name);
    switch (tensor.rule) {
      case 'crane': return [at(tensor.layer === null ? (tensor.group === 'final_norm' ? FINAL_NORM_DIRECTION : '') : layerKey(tensor))].filter((d) => d >= 0);
      case 'embedding': return [at(EMBED_THINK)].filter((d) => d >= 0);
      case 'lm_head': return [at(LM_HEAD_THINK), at(LM_HEAD_BLEND)].filter((d) => d >= 0);
      case 'router': return [];
    }
  };

  const thinkRows = (rowCount: number) => [...new Set(tokens.think)].filter((row) => Number.isInteger(row) && row >= 0 && row < rowCount).sort((a, b) => a - b);
  const movedRows = (name: string, rowCount: number): ReadonlyMap<number, readonly number[] | 'all'> | undefined => {
    switch (classifyTensor(name).rule) {
      case 'embedding': return new Map(directionsOf(name).map((direction) => [direction, thinkRows(rowCount)]));
      case 'lm_head': return new Map(directionsOf(name).map((direction) => [direction, direction === at(LM_HEAD_THINK) ? thinkRows(rowCount) : 'all']));
      default: return undefined;
    }
  };

  const rowDeltaOf = (name: string, direction: number, rows: RowSet, thetaI: Float32Array, thetaT: Float32Array): Float32Array => {
    const count = 'count' in rows ? rows.count : rows.length;
    const shape = [count, count === 0 ? 0 : thetaI.length / count];
    const local = localRows(rows);
    const { rule } = classifyTensor(name);
    if (rule === 'embedding' && direction === at(EMBED_THINK)) return minusInPlace(editEmbedding(thetaI, thetaT, shape, { think: local(tokens.think) }, { thinkRows: 1 }).values, thetaI);
    if (rule !== 'lm_head' || !(direction === at(LM_HEAD_THINK) || direction === at(LM_HEAD_BLEND))) throw new Error(`internal: ${name} has no row-local direction ${direction}`);
    const special = direction === at(LM_HEAD_THINK) ? { thinkRows: 1, lmHeadScale: 0 } : { thinkRows: 0, lmHeadScale: 1 };
    return minusInPlace(editLmHead(thetaI, thetaT, shape, { think: local(tokens.think), special: local(tokens.special) }, special, 'f32', true).values, thetaI);
  };

  const deltasOf = (name: string, shape: readonly number[], thetaI: Float32Array, thetaT: Float32Array): DirectionDelta[] => {
    const tensor = classifyTensor(name);
    if (tensor.rule === 'embedding' || tensor.rule === 'lm_head') throw new Error(`internal: ${name} is row-local: its Δ comes from rowDeltaOf`);
    const [direction] = directionsOf(name);
    return direction === undefined ? [] : [{ direction, delta: craneDelta(tensor, shape, thetaI, thetaT, unit, context).delta }];
  };

  return { directions, recipe, deltasOf, directionsOf, movedRows, rowDeltaOf };
}

/** Token ids as indices into `rows`; ids not among them are dropped (an id past the tensor's rows, too, as the edit skips it). */
function localRows(rows: RowSet): (ids: readonly number[]) => number[] {
  if ('count' in rows) {
    const { first, count } = rows;
    return (ids) => ids.filter((id) => id >= first && id < first + count).map((id) => id - first);
  }
  const place = new Map(rows.map((row, i) => [row, i]));
  return (ids) => ids.flatMap((id) => place.get(id) ?? []);
}

/** edited − θ_I, into `edited`: each difference rounded to float32 as a fresh Float32Array of them would be. */
function minusInPlace(edited: Float32Array, thetaI: Float32Array): Float32Array {
  for (let i = 0; i < edited.length; i++) edited[i] = (edited[i] as number) - (thetaI[i] as number);
  return edited;
}

function layerKey(tensor: TensorClass): string {
  return blockKey({ group: tensor.group as LayerGroup, block: null, layer: tensor.layer });
}
