import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTorchFile, writeTorchFile, type TorchTensor, type TorchValue } from './torch-file.ts';

const TESTDATA = join(import.meta.dirname, 'testdata');
const TORCH_DTYPES: Record<string, TorchTensor['dtype']> = { 'torch.float32': 'F32', 'torch.bfloat16': 'BF16', 'torch.float16': 'F16', 'torch.float64': 'F64' };

interface ExpectedTensor {
  readonly dtype: string;
  readonly shape: number[];
  readonly values: number[];
}

describe('readTorchFile on a file torch.save wrote (testdata/make_torch_golden.py)', () => {
  it('reads every projector as torch.load(weights_only=True) does: strided V_r views, offsets, f32/bf16/f16', async () => {
    const expected = JSON.parse(await readFile(join(TESTDATA, 'format_projectors.expected.json'), 'utf8')) as Record<string, Record<string, ExpectedTensor>>;
    const read = await readTorchFile(join(TESTDATA, 'format_projectors.pt'));
    expect(read).toEqual(new Map(Object.entries(expected).map(([key, entry]) => [key, new Map(Object.entries(entry).map(([name, t]) => [
      name,
      { kind: 'tensor', dtype: TORCH_DTYPES[t.dtype], shape: t.shape, values: Float32Array.from(t.values) },
    ]))])));
  });
});

// Debian's python3-torch, as tools/reference uses; pyenv's python3 has no torch.
const PYTHON = '/usr/bin/python3';
const torchAvailable = spawnSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
if (!torchAvailable) console.warn(`SKIPPED: live PyTorch interop tests (${PYTHON} cannot import torch; apt-get install python3-torch to run them)`);

/** Runs a Python snippet with torch imported; its stdout parsed as JSON. */
function python(script: string, ...args: string[]): unknown {
  const run = spawnSync(PYTHON, ['-c', `import json, sys, torch\n${script}`, ...args], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`python failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as unknown;
}

// Turns what torch.load returned into JSON: tensors as {dtype, shape, stride, values}.
const DUMP = `
def dump(v):
    if isinstance(v, torch.Tensor):
        return {"dtype": str(v.dtype), "shape": list(v.shape), "stride": list(v.stride()), "values": v.float().flatten().tolist()}
    if isinstance(v, dict):
        return {k: dump(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [dump(x) for x in v]
    return v
`;

describe.skipIf(!torchAvailable)('interop with live PyTorch', () => {
  let dir: string;
  beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'crane-torch-interop-')); });
  afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

  it('torch.load(weights_only=True) reads what writeTorchFile wrote, value for value', async () => {
    const path = join(dir, 'format_projectors.pt');
    await writeTorchFile(path, new Map<string, TorchValue>([
      ['layer_2_attn_input', new Map<string, TorchValue>([
        ['V_r', { kind: 'tensor', dtype: 'F32', shape: [3, 2], values: Float32Array.from([0.5, -1, 2.25, 3e-5, -7, 8]) }],
        ['sigma', { kind: 'tensor', dtype: 'BF16', shape: [2], values: Float32Array.from([9.5, 0.125]) }],
      ])],
      ['half', { kind: 'tensor', dtype: 'F16', shape: [1, 1], values: Float32Array.from([-0.333251953125]) }],
      ['double', { kind: 'tensor', dtype: 'F64', shape: [], values: Float32Array.from([1.5]) }],
      ['meta', [1, -3_000_000_000, 'σ', true, null]],
    ]));
    expect(python(`${DUMP}\nprint(json.dumps(dump(torch.load(sys.argv[1], weights_only=True))))`, path)).toEqual({
      layer_2_attn_input: {
        V_r: { dtype: 'torch.float32', shape: [3, 2], stride: [2, 1], values: [0.5, -1, 2.25, Math.fround(3e-5), -7, 8] },
        sigma: { dtype: 'torch.bfloat16', shape: [2], stride: [1], values: [9.5, 0.125] },
      },
      half: { dtype: 'torch.float16', shape: [1, 1], stride: [1, 1], values: [-0.333251953125] },
      double: { dtype: 'torch.float64', shape: [], stride: [], values: [1.5] },
      meta: [1, -3_000_000_000, 'σ', true, null],
    });
  });

  // Python floats are BINFLOAT, which torch's weights-only loader reads from torch 2.0 on but not in
  // Debian's torch 1.13 (its loader lacks that opcode), so this file of our own is read unrestricted.
  it('torch.load reads the floats writeTorchFile wrote', async () => {
    const path = join(dir, 'floats.pt');
    await writeTorchFile(path, new Map([['floats', [2.5, -1e-300, 1 / 3]]]));
    expect(python('print(json.dumps(torch.load(sys.argv[1], weights_only=False)))', path)).toEqual({ floats: [2.5, -1e-300, 1 / 3] });
  });

  it('readTorchFile reads a tree torch.save writes now (lists, tuples, numbers, views)', async () => {
    const path = join(dir, 'live.pt');
    const dumped = python(`${DUMP}
torch.manual_seed(1)
base = torch.randn(4, 5)
tree = {"t": base.T[1:, 2:], "row": base[2], "n": [1, 2**40, -5, 0.25, "s", None, False], "pair": (3, "x")}
torch.save(tree, sys.argv[1])
print(json.dumps(dump(tree)))`, path) as Record<string, { shape: number[]; values: number[] }>;
    const asTensor = ({ shape, values }: { shape: number[]; values: number[] }) => ({ kind: 'tensor', dtype: 'F32', shape, values: Float32Array.from(values) });
    expect(await readTorchFile(path)).toEqual(new Map<string, unknown>([
      ['t', asTensor(dumped.t as { shape: number[]; values: number[] })],
      ['row', asTensor(dumped.row as { shape: number[]; values: number[] })],
      ['n', [1, 2 ** 40, -5, 0.25, 's', null, false]],
      ['pair', [3, 'x']],
    ]));
  });
});
