/**
 * The baselines researchers compare CRANE against, as PairedEdits on the same base θ_I.
 *
 *   baselineEdit(settings) → PairedEdit
 *   tiesTrim(delta, density)           keep the top-`density` fraction of |δ| (no rescale)
 *   dareDrop(delta, p, seed, name)     drop with probability p, survivors ×1/(1−p), seeded per tensor
 *
 * Task Arithmetic θ_I + λδ · TIES θ_I + λ·trim(δ) · SLERP per row (slerp.ts) · DARE θ_I + λ·drop(δ)
 * · AIM-TA θ_I + (λδ scaled per input channel by 1 − s_j(1 − ω)) · AIM-TIES the same on λ·trim(δ) · LEWIS θ_I + λ·trim(δ) at its (layer, projection)'s
 * density (lewis-schedule.ts; TIES's elect and disjoint merge are the identity for one task vector). Every method touches every tensor
 * (embeddings, lm_head and routers included); CRANE's special-tensor rules are CRANE's own.
 *
 * Decisions: TIES keeps k = floor(n·density) magnitudes and every entry tied with the k-th
 * largest (|δ| ≥ that value, as the reference does); 1-D tensors are one row for SLERP (a
 * norm vector is a single direction, and scalar rows would make SLERP meaningless); AIM is
 * applied to 2-D tensors the caller has an importance vector for whose input width matches
 * (as _aim.py), the rest get plain Task Arithmetic / TIES.
 */
import { kthSmallestAbs } from '../linalg/kth-smallest.ts';
import type { BaselineMethod } from '../protocol/settings-schemas.ts';
import { aimScaleInPlace } from './aim.ts';
import { countOfFraction } from './magnitude-threshold.ts';
import { uniformStream } from './tensor-random-stream.ts';
import { baselineSlerpRows } from './slerp.ts';
import { addDelta, taskVector, type PairedEdit } from './tensor-pair.ts';

/** The protocol's baselines; AIM also needs the importance vectors (aim.ts), which only the engine has. */
export type BaselineSettings =
  | Exclude<BaselineMethod, { method: 'aim' | 'aim_ties' | 'lewis' }>
  | (Extract<BaselineMethod, { method: 'aim' | 'aim_ties' }> & {
    /** mean |x_j| of the base model's inputs to this tensor, when known. */
    readonly importance: (name: string) => Float32Array | Float64Array | undefined;
  })
  | (Extract<BaselineMethod, { method: 'lewis' }> & {
    /** TIES density of this tensor from the two models' importances (lewisDensityOf). */
    readonly densityOf: (name: string) => number;
  });

export function baselineEdit(settings: BaselineSettings): PairedEdit {
  // RAIN reads a Base checkpoint and model passes, not one tensor pair: engine/pipeline/rain-merge.ts.
  if (settings.method === 'rain') {
    throw new RangeError('RAIN is not a two-checkpoint edit: it runs on a Base checkpoint and its two calibration files (crane merge/verify --method rain --base B --rain-reasoning F --rain-instructions F)');
  }
  return (name, shape, thetaI, thetaT, handedOver) => {
    if (settings.method === 'slerp') return { values: baselineSlerpRows(thetaI, thetaT, shape, settings.t) };
    if (settings.method === 'task_arithmetic') return { values: taskArithmetic(thetaI, thetaT, settings.lambda, handedOver === true ? thetaT : new Float32Array(thetaI.length)) };
    const delta = taskVector(thetaI, thetaT, handedOver === true ? thetaT : undefined);
    const moved = settings.method === 'ties' || settings.method === 'aim_ties' ? tiesTrim(delta, settings.density)
      : settings.method === 'lewis' ? tiesTrim(delta, settings.densityOf(name))
      : settings.method === 'dare' ? dareDrop(delta, settings.dropProbability, settings.seed, name)
        : delta;
    scaleInPlace(moved, settings.lambda);
    if (settings.method === 'aim' || settings.method === 'aim_ties') {
      const importance = settings.importance(name);
      if (importance !== undefined && shape.length === 2 && importance.length === shape[1]) aimScaleInPlace(moved, importance, settings.omega);
    }
    // `moved` is this edit's own array (δ or a trimmed/dropped copy of it): θ_M overwrites it.
    return { values: addDelta(thetaI, moved, moved) };
  };
}

export function tiesTrim(delta: Float32Array, density: number): Float32Array {
  if (!(density >= 0 && density <= 1)) throw new RangeError(`density ${density} must be in [0, 1]`);
  const n = delta.length;
  const keep = countOfFraction(n, density);
  if (keep >= n) return Float32Array.from(delta);
  if (keep <= 0) return new Float32Array(n);
  const threshold = kthSmallestAbs(delta, n - keep + 1);
  return delta.map((v) => (Math.abs(v) >= threshold ? v : 0));
}

export function dareDrop(delta: Float32Array, dropProbability: number, seed: number, name: string): Float32Array {
  if (!(dropProbability >= 0 && dropProbability < 1)) throw new RangeError(`drop probability ${dropProbability} must be in [0, 1)`);
  const next = uniformStream(seed, name);
  const rescale = 1 / (1 - dropProbability);
  return delta.map((v) => (next() < dropProbability ? 0 : v * rescale));
}

/**
 * θ_I + λδ in one pass, into `out` (it may be θ_T): each step rounded to float32 as the separate
 * passes (taskVector, scaleInPlace, addDelta) store it, so the values are theirs bit for bit, with
 * one read of each input instead of three passes over tensor-sized arrays (the export's main loop).
 */
function taskArithmetic(thetaI: Float32Array, thetaT: Float32Array, lambda: number, out: Float32Array): Float32Array {
  for (let i = 0; i < out.length; i++) {
    const base = thetaI[i] as number;
    out[i] = base + Math.fround(lambda * Math.fround((thetaT[i] as number) - base));
  }
  return out;
}

function scaleInPlace(values: Float32Array, factor: number): void {
  for (let i = 0; i < values.length; i++) values[i] = factor * (values[i] as number);
}
