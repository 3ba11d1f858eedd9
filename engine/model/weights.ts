/**
 * Lazy access to a checkpoint's weights as tfjs tensors, one decoder layer at a time.
 *
 * Layer parameters are keyed by their name relative to `model.layers.{i}.` (e.g.
 * "self_attn.q_proj.weight"); layerTensorName() gives the full checkpoint name. Shapes are
 * checked against the config so a mismatched checkpoint fails with the tensor's name.
 *
 * Sparse MoE layers (Qwen3-MoE) hold a router and per-expert keys (moe-weights.ts); a checkpoint
 * with fused 3-D expert tensors is split into those keys on reading and its gradients are fused back.
 */
import * as tf from '@tensorflow/tfjs-core';
import { CheckpointError } from '../io/checkpoint-error.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import type { ModelSpec } from './config.ts';
import { copyValues } from '../tensor/heap-values.ts';
import { withUploadBuffer } from '../tensor/upload-buffer.ts';
import { isSparseLayer } from './moe-config.ts';
import { EXPERT_PROJECTIONS, ROUTER_KEY, detectExpertLayout, expertKey, fuseExpertArrays, fusedShapes, perExpertShapes, splitFusedExpert, type ExpertLayout } from './moe-weights.ts';

/**
 * Where weights come from: a Checkpoint, or anything with the same read surface (tests wrap a
 * checkpoint to perturb single tensors for finite differences). `readRowsFloat32`, where a source
 * has it, gives chosen rows of a tensor as its readFloat32 would have them: the embedding lookup
 * then reads only the batch's rows (embedding-rows.ts), not a vocab-sized tensor.
 */
export type WeightSource = Pick<Checkpoint, 'dir' | 'config' | 'tensors' | 'tensor' | 'readFloat32'> & Partial<Pick<Checkpoint, 'readRowsFloat32'>>;

/** One decoder layer's parameters, keyed by relative name. */
export type LayerParams = Readonly<Record<string, tf.Tensor>>;

export const EMBED_NAME = 'model.embed_tokens.weight';
export const FINAL_NORM_NAME = 'model.norm.weight';
export const LM_HEAD_NAME = 'lm_head.weight';

export function layerTensorName(layer: number, key: string): string {
  return `model.layers.${layer}.${key}`;
}

/**
 * Relative names and shapes of every parameter of decoder layer `layer`, in a fixed order (a
 * sparse MoE layer: router and per-expert keys, whatever layout its checkpoint uses).
 */
export function layerParamShapes(spec: ModelSpec, layer: number): ReadonlyMap<string, readonly number[]> {
  const { hiddenSize: h, intermediateSize: m, numHeads, numKvHeads, headDim: d } = spec;
  const shapes = new Map<string, readonly number[]>();
  const lin = (key: string, out: number, inp: number, bias: boolean): void => {
    shapes.set(`${key}.weight`, [out, inp]);
    if (bias) shapes.set(`${key}.bias`, [out]);
  };
  shapes.set('input_layernorm.weight', [h]);
  lin('self_attn.q_proj', numHeads * d, h, spec.qkvBias);
  lin('self_attn.k_proj', numKvHeads * d, h, spec.qkvBias);
  lin('self_attn.v_proj', numKvHeads * d, h, spec.qkvBias);
  lin('self_attn.o_proj', h, numHeads * d, spec.oBias);
  if (spec.qkNorm) {
    shapes.set('self_attn.q_norm.weight', [d]);
    shapes.set('self_attn.k_norm.weight', [d]);
  }
  shapes.set('post_attention_layernorm.weight', [h]);
  if (isSparseLayer(spec.moe, layer)) {
    shapes.set(ROUTER_KEY, [spec.moe.numExperts, h]);
    for (const [key, shape] of perExpertShapes(spec.moe, h)) shapes.set(key, shape);
    return shapes;
  }
  lin('mlp.gate_proj', m, h, spec.mlpBias);
  lin('mlp.up_proj', m, h, spec.mlpBias);
  lin('mlp.down_proj', h, m, spec.mlpBias);
  return shapes;
}

/** Throws a CheckpointError unless tensor `name` has `shape`, the one config.json implies. */
export function assertShape(checkpoint: WeightSource, name: string, shape: readonly number[]): void {
  const info = checkpoint.tensor(name);
  if (info.shape.length !== shape.length || info.shape.some((n, i) => n !== shape[i])) {
    throw new CheckpointError('shape', checkpoint.dir, `has shape [${info.shape.join(', ')}] but config.json implies [${shape.join(', ')}]`, name);
  }
}

/** Reads one tensor as float32, checking its shape (into `into` where the source takes it: Checkpoint.readFloat32). */
export async function readChecked(checkpoint: WeightSource, name: string, shape: readonly number[], into?: Float32Array): Promise<Float32Array> {
  assertShape(checkpoint, name, shape);
  return checkpoint.readFloat32(name, into);
}

/** One tensor read and uploaded through the thread's reused read buffer (upload-buffer.ts: no fresh pages per read on wasm). */
function readUploaded(checkpoint: WeightSource, name: string, shape: readonly number[]): Promise<tf.Tensor> {
  return withUploadBuffer(shape.reduce((a, b) => a * b, 1), async (into) => tf.tensor(await readChecked(checkpoint, name, shape, into), [...shape]));
}

/**
 * Weights held transposed, [in, out], while in tfjs: the MoE router and the experts' projections
 * (moe-block.ts, moe-experts.ts multiply x · W). Every other projection is held as stored,
 * [out, in], and multiplied as (W · xᵀ)ᵀ (ops.ts linear), so reading it is an upload only.
 */
export function heldTransposed(key: string): boolean {
  return key === ROUTER_KEY || (key.startsWith('mlp.experts.') && key.endsWith('_proj.weight'));
}

/** One decoder layer in memory. */
export interface LayerWeights {
  /** Every parameter, the router and expert weights transposed (heldTransposed). What gradients are taken of. */
  readonly params: LayerParams;
  /** How the checkpoint stores this layer's experts; undefined for a dense MLP. */
  readonly experts?: ExpertLayout;
}

/**
 * Reads decoder layer `layer` from disk into fresh tensors (the caller disposes them with
 * disposeLayer), each tensor through one reused read buffer (readUploaded).
 */
export async function readLayer(checkpoint: WeightSource, spec: ModelSpec, layer: number): Promise<LayerWeights> {
  const params: Record<string, tf.Tensor> = {};
  const experts = isSparseLayer(spec.moe, layer)
    ? detectExpertLayout(checkpoint.tensors.keys(), layerTensorName(layer, ''), spec.moe, spec.hiddenSize, checkpoint.dir)
    : undefined;
  const put = (key: string, value: tf.Tensor): void => {
    if (!heldTransposed(key)) {
      params[key] = value;
      return;
    }
    params[key] = tf.transpose(value);
    value.dispose();
  };
  try {
    for (const [key, shape] of layerParamShapes(spec, layer)) {
      if (experts === 'fused' && key.startsWith('mlp.experts.')) continue;
      put(key, await readUploaded(checkpoint, layerTensorName(layer, key), shape));
    }
    if (experts === 'fused' && spec.moe !== undefined) {
      const [gateUp, down] = await Promise.all([...fusedShapes(spec.moe, spec.hiddenSize)].map(([key, shape]) => readChecked(checkpoint, layerTensorName(layer, key), shape)));
      const shapes = perExpertShapes(spec.moe, spec.hiddenSize);
      for (let e = 0; e < spec.moe.numExperts; e++) {
        const split = splitFusedExpert(gateUp as Float32Array, down as Float32Array, spec.moe, spec.hiddenSize, e);
        for (const projection of EXPERT_PROJECTIONS) {
          const key = expertKey(e, projection);
          put(key, tf.tensor(split[projection], [...(shapes.get(key) as readonly number[])]));
        }
      }
    }
  } catch (error) {
    tf.dispose(Object.values(params));
    throw error;
  }
  return { params, ...(experts === undefined ? {} : { experts }) };
}

export function disposeLayer(weights: LayerWeights): void {
  tf.dispose(Object.values(weights.params));
}

/** A gradient taken of a parameter as readLayer holds it, in the checkpoint's layout. */
export function toStoredLayout(key: string, grad: tf.Tensor): tf.Tensor {
  return heldTransposed(key) ? tf.transpose(grad) : grad;
}

/**
 * Layer `layer`'s gradients (relative key → gradient of the parameter as held) under their full
 * checkpoint names and in the checkpoint's layouts: a fused-expert layer's per-expert gradients are fused.
 * With `lent`, each is copied into that map's array for its key (made on first use, kept for
 * the next layer), not into a fresh one.
 */
export function checkpointLayerGrads(spec: ModelSpec, weights: LayerWeights, layer: number, grads: ReadonlyMap<string, tf.Tensor>, lent?: Map<string, Float32Array>): Map<string, Float32Array> {
  const byKey = new Map<string, Float32Array>();
  for (const [key, grad] of grads) {
    const storedGrad = toStoredLayout(key, grad);
    byKey.set(key, lent === undefined ? storedGrad.dataSync() as Float32Array : copyValues(storedGrad, lentArray(lent, key, storedGrad.size)));
    if (storedGrad !== grad) storedGrad.dispose();
  }
  if (weights.experts === 'fused' && spec.moe !== undefined) {
    const fused = fuseExpertArrays(spec.moe, spec.hiddenSize, (e, projection) => byKey.get(expertKey(e, projection)) as Float32Array);
    for (const key of byKey.keys()) if (key.startsWith('mlp.experts.')) byKey.delete(key);
    for (const [key, grad] of fused) byKey.set(key, grad);
  }
  return new Map([...byKey].map(([key, grad]) => [layerTensorName(layer, key), grad]));
}

function lentArray(lent: Map<string, Float32Array>, key: string, length: number): Float32Array {
  const kept = lent.get(key);
  if (kept !== undefined && kept.length === length) return kept;
  const made = new Float32Array(length);
  lent.set(key, made);
  return made;
}

export function param<T extends tf.Tensor>(params: LayerParams, key: string): T {
  const p = params[key];
  if (p === undefined) throw new Error(`internal: layer parameter "${key}" missing`);
  return p as T;
}

export function optionalParam<T extends tf.Tensor>(params: LayerParams, key: string): T | undefined {
  return params[key] as T | undefined;
}
