import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTorchFile } from '../io/torch-file.ts';
import { editMethodFromFlags } from './cli-settings.ts';
import { lewisImportancesFromFlags } from './lewis-flags.ts';

const dir = await mkdtemp(join(tmpdir(), 'lewis-flags-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const TOKENS = { think: [], special: [] };
const q = (layer: number) => `model.layers.${layer}.self_attn.q_proj`;

describe('--method lewis flags', () => {
  it('reads both importance files and schedules the densities from --gamma/--epsilon/--default-density', async () => {
    const base = join(dir, 'instruct.pt');
    const tuned = join(dir, 'thinking.json');
    await writeTorchFile(base, new Map([[q(0), 1.5], [q(1), 1.5]]));
    await writeFile(tuned, JSON.stringify({ [q(0)]: 2, [q(1)]: 4 }));
    const values = { method: 'lewis', 'importance-base': base, 'importance-tuned': tuned, gamma: '0.2', epsilon: '0.6', 'default-density': '0.4', alpha: '0.5' };
    const files = await lewisImportancesFromFlags(values);
    expect(files?.base.sha256).toMatch(/^[0-9a-f]{64}$/);
    const method = editMethodFromFlags(values, TOKENS, undefined, files && { base: files.base.importance, tuned: files.tuned.importance });
    if (method.method !== 'lewis') throw new Error(`expected a LEWIS method, got ${method.method}`);
    expect({ ...method, densityOf: undefined }).toEqual({ method: 'lewis', lambda: 0.5, gamma: 0.2, epsilon: 0.6, defaultDensity: 0.4, densityOf: undefined });
    expect(method.densityOf(`${q(0)}.weight`)).toBe(0.2); // |Δ| 0.5 of 3: the floor
    expect(method.densityOf(`${q(1)}.weight`)).toBeCloseTo(0.6, 15); // |Δ| 2.5 of 3: the ceiling
    expect(method.densityOf('lm_head.weight')).toBe(0.4);
  });

  it('refuses missing files, files with another method, and γ > ε', async () => {
    await expect(lewisImportancesFromFlags({ method: 'lewis', 'importance-base': 'a.pt' })).rejects.toThrow(/--method lewis needs --importance-base F \(Instruct\) and --importance-tuned F/);
    await expect(lewisImportancesFromFlags({ method: 'ties', 'importance-base': 'a.pt' })).rejects.toThrow(/go with --method lewis/);
    expect(await lewisImportancesFromFlags({ method: 'ties' })).toBeUndefined();
    expect(() => editMethodFromFlags({ method: 'lewis' }, TOKENS)).toThrow(/--method lewis needs --importance-base/);
    const same = new Map([[q(0), 1]]);
    expect(() => editMethodFromFlags({ method: 'lewis', gamma: '0.9', epsilon: '0.5' }, TOKENS, undefined, { base: same, tuned: same })).toThrow(/γ ≤ ε/);
  });
});
