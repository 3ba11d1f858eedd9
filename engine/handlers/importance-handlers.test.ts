/**
 * The UI's path for the methods that read importance files, through the engine handlers on a tiny
 * analysed project: Verify measures LEWIS (its first use measures both models' importance into the
 * analysis folder; the next reads the cache) and AIM-TIES; Export writes LEWIS and AIM-TA
 * checkpoints whose folders carry the importance copies, and their recipes rebuild them byte for
 * byte from the export folder alone.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLewisImportance } from '../crane/lewis-importance-file.ts';
import { exportFromRecipe } from '../export/export-checkpoint.ts';
import { RECIPE_FILE } from '../export/recipe.ts';
import { initBackend } from '../tensor/backend.ts';
import { call, harness, recordingContext, type Harness } from './testing/handler-harness.ts';

let h: Harness;
let analysisDir: string;
const lewis = { method: 'lewis' as const, lambda: 0.5, gamma: 0.3, epsilon: 0.8, defaultDensity: 0.5 };
const lewisFiles = () => ['base', 'tuned'].map((side) => join(analysisDir, 'stages', 'lewis', `lewis-importance-${side}.json`));

beforeAll(async () => {
  await initBackend('wasm');
  h = await harness(await mkdtemp(join(tmpdir(), 'crane-importance-')));
  await call(h, 'openPair', { instruct: h.instruct, thinking: h.thinking });
  const projectDir = (await call(h, 'getProjectState', {}))?.projectDir as string;
  await call(h, 'analyze', { projectDir, settings: h.settings.analysis });
  analysisDir = (await h.session.analysis()).analysisDir;
}, 180_000);

afterAll(async () => {
  if (h !== undefined) await rm(h.root, { recursive: true, force: true });
});

async function fileHashes(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir)).sort();
  return Object.fromEntries(await Promise.all(files.map(async (f) => [f, createHash('sha256').update(await readFile(join(dir, f))).digest('hex')] as const)));
}

describe('Verify and Export of the importance methods', () => {
  it('Verify measures LEWIS, measuring both models\' importance once and keeping it with the analysis', async () => {
    const ctx = recordingContext();
    const first = await call(h, 'verify', { method: lewis }, ctx);
    expect(first.method.method).toBe('lewis');
    expect(first.edited.reasoning).not.toBe(first.base.reasoning);
    const [base, tuned] = await Promise.all(lewisFiles().map(readLewisImportance));
    // Every block Linear of both layers, each side measured with its own weights.
    expect(base?.importance.size).toBe(14);
    expect([...(base?.importance.keys() ?? [])]).toEqual([...(tuned?.importance.keys() ?? [])]);
    expect(base?.sha256).not.toBe(tuned?.sha256);
    const written = await Promise.all(lewisFiles().map(async (f) => (await stat(f)).mtimeMs));
    const again = await call(h, 'verify', { method: { ...lewis, gamma: 0.1 } });
    expect(again.edited.reasoning).not.toBe(first.edited.reasoning);
    expect(await Promise.all(lewisFiles().map(async (f) => (await stat(f)).mtimeMs))).toEqual(written);
  }, 180_000);

  it('Verify measures AIM-TIES from the analysis\' AIM file', async () => {
    const result = await call(h, 'verify', { method: { method: 'aim_ties', lambda: 0.5, omega: 0.3, density: 0.5 } });
    expect(result.method.method).toBe('aim_ties');
    expect(result.edited.agent).not.toBe(result.base.agent);
  }, 120_000);

  it.each([
    ['lewis', lewis, ['crane_lewis_importance_base.json', 'crane_lewis_importance_tuned.json']],
    ['aim', { method: 'aim' as const, lambda: 0.5, omega: 0.3 }, ['crane_aim_importance.safetensors']],
  ] as const)('Export writes a %s checkpoint that carries its importance files and rebuilds from its folder alone', async (name, method, copies) => {
    const outDir = join(h.root, `export-${name}`);
    const summary = await call(h, 'export', { outDir, dtype: 'source', shardBytes: 1 << 20, method, overwrite: false });
    expect(summary.files).toEqual(expect.arrayContaining([...copies, RECIPE_FILE]));
    const recipe: unknown = JSON.parse(await readFile(join(outDir, RECIPE_FILE), 'utf8'));
    expect(recipe).toMatchObject({ method, importance: expect.any(Object) as unknown });
    const again = join(h.root, `again-${name}`);
    await exportFromRecipe(recipe, { instruct: h.instruct, thinking: h.thinking, recipeDir: outDir, outDir: again });
    expect(await fileHashes(again)).toEqual(await fileHashes(outDir));
  }, 120_000);
});
