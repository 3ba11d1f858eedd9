/**
 * What a looped model (loop-config.ts) does between two passes of its decoder stack: model.norm
 * on the residual stream when the config keeps skip_loop_final_norm false, nothing otherwise.
 * Forward (in tfjs, or in place on JS-memory hidden states for the layer-major runtime) and the
 * backward the layer-wise gradients need (input gradient and model.norm's gradient part).
 *
 * Positions, RoPE and the causal mask are the same in every pass; only K/V differ, so a caller
 * that caches K/V keeps one slot per (pass, layer): kvSlot.
 */
import * as tf from '@tensorflow/tfjs-core';
import { tidyValues } from '../tensor/tidy-values.ts';
import type { ModelSpec } from './config.ts';
import type { ModelContext } from './forward.ts';
import { passCount } from './loop-config.ts';
import { rmsNorm } from './ops.ts';
import { FINAL_NORM_NAME, readChecked } from './weights.ts';

/** Cache slot of (pass, layer), as modeling_nanbeige.py numbers them: layer + pass·numLayers. */
export function kvSlot(spec: ModelSpec, pass: number, layer: number): number {
  return pass * spec.numLayers + layer;
}

function normsBetweenPasses(spec: ModelSpec): boolean {
  return spec.loop?.normBetweenPasses === true && passCount(spec) > 1;
}

/**
 * x through every pass of the stack: `layer` applies one (pass, layer), `norm` is model.norm
 * (applied between passes when the config says so). A model without a loop is one pass.
 */
export function throughPasses<T>(spec: ModelSpec, x: T, layer: (input: T, pass: number, layer: number) => T, norm: (input: T) => T): T {
  let h = x;
  for (let pass = 0; pass < passCount(spec); pass++) {
    if (pass > 0 && normsBetweenPasses(spec)) h = norm(h);
    for (let l = 0; l < spec.numLayers; l++) h = layer(h, pass, l);
  }
  return h;
}

/**
 * Applies the step between two passes to `hidden` (one [T·hidden] per sequence) in place;
 * `keep` first receives the pre-norm states (the backward's recompute input).
 */
export async function betweenPasses(ctx: ModelContext, hidden: Float32Array[], keep?: (inputs: readonly Float32Array[]) => void): Promise<void> {
  const { spec } = ctx;
  if (!normsBetweenPasses(spec)) return;
  keep?.([...hidden]);
  const weight = await readChecked(ctx.checkpoint, FINAL_NORM_NAME, [spec.hiddenSize]);
  for (let s = 0; s < hidden.length; s++) {
    const input = hidden[s] as Float32Array;
    hidden[s] = tidyValues(() => rmsNorm(tf.tensor2d(input, [input.length / spec.hiddenSize, spec.hiddenSize]), tf.tensor1d(weight), spec.rmsNormEps));
  }
}

export interface BetweenPassesBackward {
  /** d objective / d pre-norm states, one [T·hidden] per sequence. */
  readonly dInputs: Float32Array[];
  /** This norm's part of model.norm.weight's gradient, summed over sequences. */
  readonly dNorm: Float32Array;
}

/** Backward of the norm between passes, from its inputs (kept by betweenPasses) and output gradients. */
export async function betweenPassesBackward(ctx: ModelContext, inputs: readonly Float32Array[], dOutputs: readonly Float32Array[]): Promise<BetweenPassesBackward> {
  const { spec } = ctx;
  const width = spec.hiddenSize;
  const weight = tf.tensor1d(await readChecked(ctx.checkpoint, FINAL_NORM_NAME, [width]));
  const dNorm = new Float32Array(width);
  try {
    const dInputs = inputs.map((input, s) => {
      const rows = input.length / width;
      const [dx, dw] = tf.tidy(() => {
        const f = (x: tf.Tensor, w: tf.Tensor): tf.Tensor => rmsNorm(x, w as tf.Tensor1D, spec.rmsNormEps);
        return tf.grads(f)([tf.tensor2d(input, [rows, width]), weight], tf.tensor2d(dOutputs[s] as Float32Array, [rows, width]));
      }) as [tf.Tensor, tf.Tensor];
      dw.dataSync().forEach((v, k) => (dNorm[k] = (dNorm[k] as number) + v));
      const values = dx.dataSync() as Float32Array;
      tf.dispose([dx, dw]);
      return values;
    });
    return { dInputs, dNorm };
  } finally {
    weight.dispose();
  }
}
