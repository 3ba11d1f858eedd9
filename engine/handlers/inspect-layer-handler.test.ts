/**
 * inspectLayer on a tiny Qwen3-MoE pair that stores its experts fused: one expert's block shows
 * that expert's gate, up and down as slices of the fused tensors, edited as the merge edits them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { writeTinyProject } from '../pipeline/testing/tiny-project.ts';
import { initBackend } from '../tensor/backend.ts';
import { call, harnessOn, type Harness } from './testing/handler-harness.ts';
import { l2Norm } from './tensor-stats.ts';

const MOE = { experts: 4, perToken: 2, inner: 8, fused: true };
/** writeTinyProject's hidden size. */
const HIDDEN = 16;
const LAMBDA = 0.3;

let h: Harness;

beforeAll(async () => {
  await initBackend('wasm');
  const root = await mkdtemp(join(tmpdir(), 'crane-inspect-fused-'));
  h = await harnessOn(root, await writeTinyProject(root, { model: { moe: MOE } }));
  await call(h, 'openProject', { projectDir: h.projectDir });
  await call(h, 'openPair', { instruct: h.instruct, thinking: h.thinking });
}, 60_000);

afterAll(async () => {
  if (h !== undefined) await rm(h.root, { recursive: true, force: true });
});

/** Expert e's slice of a fused tensor of experts × rows × HIDDEN-or-inner values. */
async function expertSlice(dir: string, name: string, e: number, first: number, count: number): Promise<Float32Array> {
  const checkpoint = await Checkpoint.open(dir);
  try {
    const [, rows, columns] = checkpoint.tensor(name).shape as [number, number, number];
    return (await checkpoint.readFloat32(name)).slice((e * rows + first) * columns, (e * rows + first + count) * columns);
  } finally {
    await checkpoint.close();
  }
}

describe('inspectLayer on fused expert tensors', () => {
  it('shows one expert\'s gate, up and down as its slices of the fused tensors, with the edit of each', async () => {
    const view = await call(h, 'inspectLayer', { block: { layer: 1, group: 'expert.3' }, method: { method: 'task_arithmetic', lambda: LAMBDA }, bins: 8, mapSize: 4 });
    expect(view.tensors.map((t) => [t.name, t.shape])).toEqual([
      ['model.layers.1.mlp.experts.3.gate_proj.weight', [MOE.inner, HIDDEN]],
      ['model.layers.1.mlp.experts.3.up_proj.weight', [MOE.inner, HIDDEN]],
      ['model.layers.1.mlp.experts.3.down_proj.weight', [HIDDEN, MOE.inner]],
    ]);
    const slices = [
      ['model.layers.1.mlp.experts.gate_up_proj', 0, MOE.inner],
      ['model.layers.1.mlp.experts.gate_up_proj', MOE.inner, MOE.inner],
      ['model.layers.1.mlp.experts.down_proj', 0, HIDDEN],
    ] as const;
    for (const [i, [name, first, count]] of slices.entries()) {
      const thetaI = await expertSlice(h.instruct, name, 3, first, count);
      const thetaT = await expertSlice(h.thinking, name, 3, first, count);
      const norms = view.tensors[i]?.norms;
      expect(norms?.instruct).toBeCloseTo(l2Norm(thetaI), 5);
      expect(norms?.thinking).toBeCloseTo(l2Norm(thetaT), 5);
      expect(norms?.edited).toBeCloseTo(l2Norm(thetaI.map((v, j) => v + LAMBDA * ((thetaT[j] as number) - v))), 4);
    }
  });
});
