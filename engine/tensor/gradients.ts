/**
 * Gradient functions for the kernels the model runtime differentiates through.
 *
 * Why this exists: @tensorflow/tfjs-core's Node entry (dist/tf-core.node.js, CommonJS) ships no
 * gradients; they live in dist/register_all_gradients.js, an ES-module tree with extensionless
 * and directory imports that Node's ESM loader cannot resolve. (The @tensorflow/tfjs umbrella
 * bundle, pulled in by tfjs-node, registers them — so an existing registration always wins.)
 *
 * registerGradients() registers, once, for: Add Sub Multiply RealDiv Neg Square Rsqrt Sqrt
 * Sigmoid Exp Sum Mean BatchMatMul Reshape Transpose Concat SplitV Softmax AddN Cast Identity.
 * Formulas follow the usual definitions; broadcasting is undone by summing over the broadcast
 * axes (reduceTo). Matmul gradients go through ./matmul.ts (no slow transposed products on wasm).
 *
 * Importing this module registers nothing: initBackend (backend.ts) calls registerGradients once
 * the backend is active, and every engine entry point (CLI commands, the handlers behind crane
 * serve and the Electron engine process, tools, tests) calls initBackend before computing. So a
 * bundle that merely reaches this file, like Electron main once did, changes no global state.
 */
import * as tf from '@tensorflow/tfjs-core';
import { matMul } from './matmul.ts';

type Saved = tf.Tensor[];
type Attrs = tf.NamedAttrMap;
type GradFn = (dy: tf.Tensor | tf.Tensor[], saved: Saved, attrs: Attrs) => Record<string, () => tf.Tensor> | (() => tf.Tensor)[];

/** Sums `grad` over the axes that broadcasting expanded, back to `shape`. */
export function reduceTo(grad: tf.Tensor, shape: readonly number[]): tf.Tensor {
  const axes = tf.backend_util.getReductionAxes([...shape], grad.shape);
  const reduced = axes.length > 0 ? tf.sum(grad, axes) : grad;
  return tf.reshape(reduced, [...shape]);
}

const saved2 = (s: Saved): [tf.Tensor, tf.Tensor] => [s[0] as tf.Tensor, s[1] as tf.Tensor];
const one = (dy: tf.Tensor | tf.Tensor[]): tf.Tensor => (Array.isArray(dy) ? (dy[0] as tf.Tensor) : dy);

/** Gradient of a full reduction (Sum/Mean) over `axis` back to the input's shape. */
function expandReduced(dy: tf.Tensor, x: tf.Tensor, axisAttr: unknown): tf.Tensor {
  const axes = tf.util.parseAxisParam(axisAttr as number | number[], x.shape);
  const expanded = x.shape.map((n, i) => (axes.includes(i) ? 1 : n));
  return tf.add(tf.reshape(dy, expanded), tf.zeros(x.shape));
}

function matMulGrads(dy: tf.Tensor, a: tf.Tensor, b: tf.Tensor, ta: boolean, tb: boolean): { a: () => tf.Tensor; b: () => tf.Tensor } {
  const pick = (x: () => tf.Tensor, shape: readonly number[]) => () => reduceTo(x(), shape);
  if (!ta && !tb) return { a: pick(() => matMul(dy, b, false, true), a.shape), b: pick(() => matMul(a, dy, true, false), b.shape) };
  if (!ta && tb) return { a: pick(() => matMul(dy, b, false, false), a.shape), b: pick(() => matMul(dy, a, true, false), b.shape) };
  if (ta && !tb) return { a: pick(() => matMul(b, dy, false, true), a.shape), b: pick(() => matMul(a, dy, false, false), b.shape) };
  return { a: pick(() => matMul(b, dy, true, true), a.shape), b: pick(() => matMul(dy, a, true, true), b.shape) };
}

const GRADIENTS: { kernelName: string; inputsToSave?: string[]; outputsToSave?: boolean[]; saveAllInputs?: boolean; gradFunc: GradFn }[] = [
  { kernelName: 'Add', inputsToSave: ['a', 'b'], gradFunc: (dy, s) => ({ a: () => reduceTo(one(dy), saved2(s)[0].shape), b: () => reduceTo(one(dy), saved2(s)[1].shape) }) },
  { kernelName: 'Sub', inputsToSave: ['a', 'b'], gradFunc: (dy, s) => ({ a: () => reduceTo(one(dy), saved2(s)[0].shape), b: () => reduceTo(tf.neg(one(dy)), saved2(s)[1].shape) }) },
  {
    kernelName: 'Multiply', inputsToSave: ['a', 'b'],
    gradFunc: (dy, s) => {
      const [a, b] = saved2(s);
      return { a: () => reduceTo(tf.mul(one(dy), tf.cast(b, 'float32')), a.shape), b: () => reduceTo(tf.mul(one(dy), tf.cast(a, 'float32')), b.shape) };
    },
  },
  {
    kernelName: 'RealDiv', inputsToSave: ['a', 'b'],
    gradFunc: (dy, s) => {
      const [a, b] = saved2(s);
      return { a: () => reduceTo(tf.div(one(dy), b), a.shape), b: () => reduceTo(tf.neg(tf.div(tf.mul(one(dy), a), tf.square(b))), b.shape) };
    },
  },
  { kernelName: 'Neg', gradFunc: (dy) => ({ x: () => tf.neg(one(dy)) }) },
  { kernelName: 'Square', inputsToSave: ['x'], gradFunc: (dy, s) => ({ x: () => tf.mul(one(dy), tf.mul(s[0] as tf.Tensor, 2)) }) },
  { kernelName: 'Rsqrt', outputsToSave: [true], gradFunc: (dy, s) => ({ x: () => tf.mul(one(dy), tf.mul(tf.pow(s[0] as tf.Tensor, 3), -0.5)) }) },
  { kernelName: 'Sqrt', outputsToSave: [true], gradFunc: (dy, s) => ({ x: () => tf.div(one(dy), tf.mul(s[0] as tf.Tensor, 2)) }) },
  { kernelName: 'Sigmoid', outputsToSave: [true], gradFunc: (dy, s) => ({ x: () => { const y = s[0] as tf.Tensor; return tf.mul(one(dy), tf.mul(y, tf.sub(1, y))); } }) },
  { kernelName: 'Exp', outputsToSave: [true], gradFunc: (dy, s) => ({ x: () => tf.mul(one(dy), s[0] as tf.Tensor) }) },
  { kernelName: 'Sum', inputsToSave: ['x'], gradFunc: (dy, s, attrs) => ({ x: () => expandReduced(one(dy), s[0] as tf.Tensor, attrs['axis']) }) },
  {
    kernelName: 'Mean', inputsToSave: ['x'],
    gradFunc: (dy, s, attrs) => ({
      x: () => {
        const x = s[0] as tf.Tensor;
        const axes = tf.util.parseAxisParam(attrs['axis'] as number | number[], x.shape);
        const count = axes.reduce((n, a) => n * (x.shape[a] as number), 1);
        return tf.div(expandReduced(one(dy), x, attrs['axis']), count);
      },
    }),
  },
  {
    kernelName: 'BatchMatMul', inputsToSave: ['a', 'b'],
    gradFunc: (dy, s, attrs) => { const [a, b] = saved2(s); return matMulGrads(one(dy), a, b, attrs['transposeA'] === true, attrs['transposeB'] === true); },
  },
  { kernelName: 'Reshape', inputsToSave: ['x'], gradFunc: (dy, s) => ({ x: () => tf.reshape(one(dy), (s[0] as tf.Tensor).shape) }) },
  {
    kernelName: 'Transpose',
    gradFunc: (dy, _s, attrs) => ({ x: () => tf.transpose(one(dy), tf.backend_util.getUndoAxesPermutation(attrs['perm'] as number[])) }),
  },
  {
    kernelName: 'Concat', saveAllInputs: true,
    gradFunc: (dy, s, attrs) => {
      const axis = tf.util.parseAxisParam(attrs['axis'] as number, (s[0] as tf.Tensor).shape)[0] as number;
      const parts = tf.split(one(dy), s.map((t) => t.shape[axis] as number), axis);
      return parts.map((p) => () => p);
    },
  },
  // A split into one part is a single-output kernel, whose gradient tfjs passes as one tensor.
  { kernelName: 'SplitV', gradFunc: (dy, _s, attrs) => ({ x: () => tf.concat(Array.isArray(dy) ? dy : [dy], attrs['axis'] as number) }) },
  {
    kernelName: 'Softmax', outputsToSave: [true],
    gradFunc: (dy, s, attrs) => ({
      logits: () => {
        const y = s[0] as tf.Tensor;
        const dyy = tf.mul(one(dy), y);
        return tf.sub(dyy, tf.mul(tf.sum(dyy, [attrs['dim'] as number], true), y));
      },
    }),
  },
  { kernelName: 'AddN', saveAllInputs: true, gradFunc: (dy, s) => s.map(() => () => tf.clone(one(dy))) },
  { kernelName: 'Cast', gradFunc: (dy) => ({ x: () => tf.clone(one(dy)) }) },
  { kernelName: 'Identity', gradFunc: (dy) => ({ x: () => tf.cast(one(dy), 'float32') }) },
];

let registered = false;

/** Registers the gradients above for kernels that have none yet. Idempotent. */
export function registerGradients(): void {
  if (registered) return;
  registered = true;
  for (const config of GRADIENTS) {
    if (tf.getGradient(config.kernelName) == null) tf.registerGradient(config as unknown as tf.GradConfig);
  }
}

