/**
 * The CRANE edit as a sum of block directions: θ_M − θ_I = Σ_b c_b·Δ_b, each Δ_b fixed by the
 * stage settings (q, τ, k, the toggles) and each c_b a number the Tune sliders move.
 *
 *   const basis = editDirections(tensorNames, unitSettings, tokens, context)
 *   basis.deltasOf(name, shape, θ_I, θ_T) → [{ direction, delta }]   Δ_b of one tensor, unit coefficient
 *   basis.edit(direction, ε) → PairedEdit                              θ_I + ε·Δ_direction (everything else θ_I)
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
import type { PairedEdit } from './tensor-pair.ts';

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
  edit(direction: number, epsilon: number): PairedEdit;
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

  const deltasOf = (name: string, shape: readonly number[], thetaI: Float32Array, thetaT: Float32Array) => {
    const tensor = classifyTensor(name);
    const minus = (values: Float32Array) => values.map((v, i) => v - (thetaI[i] as number));
    switch (tensor.rule) {
      case 'crane': {
        const direction = at(tensor.layer === null ? (tensor.group === 'final_norm' ? FINAL_NORM_DIRECTION : '') : layerKey(tensor));
        return direction < 0 ? [] : [{ direction, delta: craneDelta(tensor, shape, thetaI, thetaT, unit, context).delta }];
      }
      case 'embedding': {
        const direction = at(EMBED_THINK);
        return direction < 0 ? [] : [{ direction, delta: minus(editEmbedding(thetaI, thetaT, shape, tokens, { thinkRows: 1 }).values) }];
      }
      case 'lm_head':
        return [
          { direction: at(LM_HEAD_THINK), special: { thinkRows: 1, lmHeadScale: 0 } },
          { direction: at(LM_HEAD_BLEND), special: { thinkRows: 0, lmHeadScale: 1 } },
        ].filter((d) => d.direction >= 0).map(({ direction, special }) => ({ direction, delta: minus(editLmHead(thetaI, thetaT, shape, tokens, special).values) }));
      case 'router':
        return [];
    }
  };

  return {
    directions,
    deltasOf,
    edit: (direction, epsilon) => (name, shape, thetaI, thetaT) => {
      const delta = deltasOf(name, shape, thetaI, thetaT).find((d) => d.direction === direction)?.delta;
      if (delta === undefined) return { values: thetaI };
      return { values: thetaI.map((v, i) => v + epsilon * (delta[i] as number)) };
    },
  };
}

function layerKey(tensor: TensorClass): string {
  return blockKey({ group: tensor.group as LayerGroup, block: null, layer: tensor.layer });
}
