/**
 * Gradients are registered by an explicit call (initBackend → registerGradients), never by
 * loading code: a bundle that reaches the model must not change tfjs's global registry.
 */
import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../tensor/backend.ts';
// Everything that differentiates, loaded: none of it may register gradients by being imported.
import './layer-grads.ts';
import './training/adamw.ts';
import './whole-model.ts';

const KERNELS = ['Rsqrt', 'BatchMatMul', 'Softmax', 'Identity'];

describe('gradient registration', () => {
  it('loading the model registers nothing; initBackend registers the runtime gradients', async () => {
    // tfjs-core's Node build ships no gradients, so anything here was registered by our imports.
    for (const kernel of KERNELS) expect(tf.getGradient(kernel), kernel).toBeUndefined();
    await initBackend('wasm');
    for (const kernel of KERNELS) expect(tf.getGradient(kernel), kernel).toBeDefined();
  });
});
