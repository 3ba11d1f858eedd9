/**
 * The CRANE edit as a sum of block directions: θ_M − θ_I = Σ_b c_b·Δ_b, each Δ_b fixed by the
 * stage settings (q, τ, k, the toggles) and each c_b a number the Tune sliders move.
 *
 *   const basis = editDirections(tensorNames, unitSettings, tokens, context)
 *   basis.deltasOf(name, shape, θ_I, θ_T) → [{ direction, delta }]   Δ_b of one tensor, unit coefficient
 *   basis.directionsOf(name) → number[]                               the directions that move it (nothing computed)
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
 */
import type { TokenRows } from '../protocol/settings-schemas.ts';
import { craneDelta, type CraneContext, type CraneDeltaSettings } from './crane-edit.ts';
import { blockKey } from './gate-accumulator.ts';
import { editEmbedding, editLmHead } from './special-tensors.ts';
import { classifyTensor, type LayerGroup, type TensorClass } from './tensor-classification.ts';

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

export interface DirectionBasis {
  readonly directions: readonly EditDirection[];
  deltasOf(name: string, shape: readonly number[], thetaI: Float32Array, thetaT: Float32Array): { direction: number; delta: Float32Array }[];
  directionsOf(name: string): number[];
}

export function editDirections(tensorNames: Iterable<string>, stages: UnitDeltaSettings, tokens: TokenRows, context: CraneContext): DirectionBasis {
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

  const deltasOf = (name: string, shape: readonly number[], thetaI: Float32Array, thetaT: Float32Array) => {
    const tensor = classifyTensor(name);
    const minus = (values: Float32Array) => values.map((v, i) => v - (thetaI[i] as number));
    const [direction] = directionsOf(name);
    if (direction === undefined) return [];
    switch (tensor.rule) {
      case 'crane': return [{ direction, delta: craneDelta(tensor, shape, thetaI, thetaT, unit, context).delta }];
      case 'embedding': return [{ direction, delta: thinkRowsDelta(thetaI, thetaT, shape, tokens.think) }];
      case 'lm_head':
        return [
          { direction: at(LM_HEAD_THINK), special: { thinkRows: 1, lmHeadScale: 0 } },
          { direction: at(LM_HEAD_BLEND), special: { thinkRows: 0, lmHeadScale: 1 } },
        ].filter((d) => d.direction >= 0).map(({ direction, special }) => ({ direction, delta: minus(editLmHead(thetaI, thetaT, shape, tokens, special).values) }));
      case 'router':
        return [];
    }
  };

  return { directions, deltasOf, directionsOf };
}

/**
 * The embedding's think-row direction, editEmbedding(thinkRows = 1) − θ_I, blended on the think
 * rows alone: every other row's Δ is 0, and a 151,936-row embedding is not copied twice for them.
 */
function thinkRowsDelta(thetaI: Float32Array, thetaT: Float32Array, shape: readonly number[], think: readonly number[]): Float32Array {
  const rowCount = shape[0] ?? 0;
  const width = rowCount === 0 ? 0 : thetaI.length / rowCount;
  const rows = [...new Set(think)].filter((row) => Number.isInteger(row) && row >= 0 && row < rowCount);
  const gather = (values: Float32Array) => {
    const out = new Float32Array(rows.length * width);
    rows.forEach((row, i) => out.set(values.subarray(row * width, (row + 1) * width), i * width));
    return out;
  };
  const [subI, subT] = [gather(thetaI), gather(thetaT)];
  const edited = editEmbedding(subI, subT, [rows.length, width], { think: rows.map((_, i) => i) }, { thinkRows: 1 }).values;
  const delta = new Float32Array(thetaI.length);
  rows.forEach((row, i) => {
    for (let j = 0; j < width; j++) delta[row * width + j] = (edited[i * width + j] as number) - (subI[i * width + j] as number);
  });
  return delta;
}

function layerKey(tensor: TensorClass): string {
  return blockKey({ group: tensor.group as LayerGroup, block: null, layer: tensor.layer });
}
