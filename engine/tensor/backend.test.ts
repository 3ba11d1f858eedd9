import * as tf from '@tensorflow/tfjs-core';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BackendError, activeBackend, initBackend, installedBackends, parseBackendName, requireActiveBackend, wasmBinaryPath } from './backend.ts';
import { measureMatmulGflops } from './matmul-bench.ts';

describe('backend selection', () => {
  // first in this file: no initBackend has run yet in its module graph
  it('refuses work for worker threads before initBackend, naming the work, and names the backend after it', async () => {
    expect(() => requireActiveBackend('running the gradients stage')).toThrow(BackendError);
    expect(() => requireActiveBackend('running the gradients stage')).toThrow('no backend is active: call initBackend before running the gradients stage');
    await initBackend('cpu');
    expect(requireActiveBackend('running the gradients stage')).toBe('cpu');
  });

  it('locates the wasm binaries inside the package', () => {
    expect(existsSync(wasmBinaryPath())).toBe(true);
  });

  it('loads wasm when asked and computes with it', async () => {
    const info = await initBackend('wasm');
    expect(info).toMatchObject({ name: 'wasm', tfName: 'wasm' });
    expect(info.threads).toBeGreaterThanOrEqual(1);
    expect(tf.getBackend()).toBe('wasm');
    const y = tf.matMul(tf.tensor2d([[1, 2]]), tf.tensor2d([[3], [4]]));
    expect(Array.from(y.dataSync())).toEqual([11]);
    tf.dispose(y);
  });

  it('reads CRANE_BACKEND when no name is passed', async () => {
    expect((await initBackend(undefined, { CRANE_BACKEND: 'cpu' })).name).toBe('cpu');
    expect(tf.getBackend()).toBe('cpu');
    expect((await initBackend(undefined, { CRANE_BACKEND: 'WASM' })).name).toBe('wasm');
  });

  it('rejects an unknown name, naming the variable', () => {
    expect(() => parseBackendName('cuda', 'CRANE_BACKEND')).toThrow(/CRANE_BACKEND="cuda".*node-gpu, node, wasm, cpu/);
  });

  it('lists every backend in preference order, wasm and cpu always installed', () => {
    const backends = installedBackends();
    expect(backends.map((b) => b.name)).toEqual(['node-gpu', 'node', 'wasm', 'cpu']);
    expect(backends.filter((b) => b.name === 'wasm' || b.name === 'cpu')).toEqual([{ name: 'wasm' }, { name: 'cpu' }]);
  });

  it('fails loudly, naming the backend and the reason installedBackends gives, when a requested one is absent', async () => {
    const absent = installedBackends().filter((b) => b.missing !== undefined);
    for (const { name, missing } of absent) {
      await expect(initBackend(undefined, { CRANE_BACKEND: name })).rejects.toThrow(BackendError);
      await expect(initBackend(name)).rejects.toThrow(`backend "${name}" was requested but could not be loaded: ${missing}`);
    }
  });

  it('auto-selects the best loadable backend and says why better ones were skipped', async () => {
    const info = await initBackend(undefined, {});
    expect(activeBackend()).toBe(info);
    expect(['node-gpu', 'node', 'wasm', 'cpu']).toContain(info.name);
    if (info.name === 'wasm') expect(info.skipped.map((s) => s.split(':')[0])).toEqual(['node-gpu', 'node']);
  });

  it('measures matmul throughput on the active backend', async () => {
    await initBackend('wasm');
    const before = tf.memory().numTensors;
    const result = measureMatmulGflops({ size: 128, warmup: 1, runs: 3 });
    expect(result.gflops).toBeGreaterThan(0);
    expect(result.size).toBe(128);
    expect(tf.memory().numTensors).toBe(before);
  });
});
