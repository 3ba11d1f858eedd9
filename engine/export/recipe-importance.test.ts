/**
 * AIM-TA, AIM-TIES and LEWIS exports on the tiny pair: the recipe names each importance file's
 * SHA-256 and its copy in the export folder, the export is the in-memory edit with those files
 * (not plain Task Arithmetic / TIES), and the recipe alone — with the export folder — rebuilds it
 * byte for byte; a tampered or missing copy is refused naming the file, and nothing is written.
 */
import { createHash } from 'node:crypto';
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeAimImportance } from '../crane/aim-importance-file.ts';
import { aimImportanceOf } from '../crane/aim.ts';
import { baselineEdit, type BaselineSettings } from '../crane/baselines.ts';
import { writeLewisImportance } from '../crane/lewis-importance-file.ts';
import { lewisEditSettings } from '../crane/lewis-schedule.ts';
import { editPair } from '../crane/tensor-pair.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { withTempDir } from '../io/testing/fixtures.ts';
import { writeTorchFile } from '../io/torch-file.ts';
import { exportFromRecipe, exportMerge, type ExportPaths } from './export-checkpoint.ts';
import { parseRecipe, RECIPE_FILE, type Recipe, type RecipeMethod } from './recipe.ts';
import { writeTinyCheckpoints, type TinyCheckpoints } from './testing/tiny-checkpoints.ts';
import type { ImportanceSource } from './recipe-importance.ts';

const LINEARS = ['self_attn.q_proj', 'self_attn.k_proj', 'self_attn.v_proj', 'self_attn.o_proj', 'mlp.gate_proj', 'mlp.up_proj', 'mlp.down_proj'];
const modules = [0, 1].flatMap((l) => LINEARS.map((p) => `model.layers.${l}.${p}`));

interface Fixture {
  readonly root: string;
  readonly pair: TinyCheckpoints;
  readonly aim: Map<string, Float64Array>;
  readonly lewis: { readonly base: Map<string, number>; readonly tuned: Map<string, number> };
  readonly files: { readonly aim: string; readonly lewisBase: string; readonly lewisTuned: string };
}

/** Importance files of every Linear of the tiny pair: AIM's as safetensors, LEWIS's base as torch.save, tuned as JSON. */
async function withImportancePair(body: (f: Fixture) => Promise<void>): Promise<void> {
  await withTempDir(async (root) => {
    const pair = await writeTinyCheckpoints(root);
    const instruct = await Checkpoint.open(pair.instruct);
    const aim = new Map(modules.map((m, i) => [m, Float64Array.from({ length: instruct.tensor(`${m}.weight`).shape[1] as number }, (_, j) => ((i + 3 * j) % 5) + 0.5)]));
    await instruct.close();
    const base = new Map(modules.map((m, i) => [m, 1 + i / 4]));
    const tuned = new Map(modules.map((m, i) => [m, 1 + i / 4 + ((i * 7) % 5) / 3]));
    const files = { aim: join(root, 'aim.safetensors'), lewisBase: join(root, 'instruct-lewis.pt'), lewisTuned: join(root, 'thinking-lewis.json') };
    await writeAimImportance(files.aim, aim);
    await writeTorchFile(files.lewisBase, base);
    await writeLewisImportance(files.lewisTuned, tuned);
    await body({ root, pair, aim, lewis: { base, tuned }, files });
  });
}

type ImportanceMethod = Extract<RecipeMethod, { method: 'aim' | 'aim_ties' | 'lewis' }>;

const CASES: readonly { readonly method: ImportanceMethod; readonly roles: readonly ('aim' | 'lewisBase' | 'lewisTuned')[]; readonly copies: readonly string[] }[] = [
  { method: { method: 'aim', lambda: 0.8, omega: 0.3 }, roles: ['aim'], copies: ['crane_aim_importance.safetensors'] },
  { method: { method: 'aim_ties', lambda: 0.8, omega: 0.3, density: 0.5 }, roles: ['aim'], copies: ['crane_aim_importance.safetensors'] },
  {
    method: { method: 'lewis', lambda: 0.8, gamma: 0.3, epsilon: 0.8, defaultDensity: 0.5 },
    roles: ['lewisBase', 'lewisTuned'],
    copies: ['crane_lewis_importance_base.pt', 'crane_lewis_importance_tuned.json'],
  },
];

const sourceOf = (f: Fixture, roles: readonly ('aim' | 'lewisBase' | 'lewisTuned')[]): ImportanceSource => ({
  paths: Object.fromEntries(roles.map((r) => [r, f.files[r]])), what: 'the test',
});

async function exportWith(f: Fixture, method: RecipeMethod, importance: ImportanceSource | undefined, outDir: string): Promise<Recipe> {
  const instruct = await Checkpoint.open(f.pair.instruct);
  const thinking = await Checkpoint.open(f.pair.thinking);
  try {
    return (await exportMerge({ instruct, thinking, method, dtype: 'F32', maxShardBytes: 512, outDir, ...(importance === undefined ? {} : { importance }) })).recipe;
  } finally {
    await Promise.all([instruct.close(), thinking.close()]);
  }
}

async function fileHashes(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir)).sort();
  return Object.fromEntries(await Promise.all(files.map(async (name) => [name, sha256(await readFile(join(dir, name)))] as const)));
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const settingsWith = (f: Fixture, method: ImportanceMethod): BaselineSettings => method.method === 'lewis'
  ? lewisEditSettings(method, f.lewis)
  : { ...method, importance: aimImportanceOf(new Map([...f.aim].map(([k, v]) => [k, Float32Array.from(v)]))) };

describe.each(CASES)('$method.method export', ({ method, roles, copies }) => {
  it('carries each importance file\'s hash and copy, edits with it, and rebuilds byte for byte from the export folder alone', () => withImportancePair(async (f) => {
    const first = join(f.root, 'first');
    const recipe = await exportWith(f, method, sourceOf(f, roles), first);
    for (const [i, role] of roles.entries()) {
      expect(recipe.importance?.[role]).toEqual({ sha256: sha256(await readFile(f.files[role])), file: copies[i] });
      expect(sha256(await readFile(join(first, copies[i] as string)))).toBe(recipe.importance?.[role]?.sha256);
    }
    const card = await readFile(join(first, 'README.md'), 'utf8');
    for (const [i, role] of roles.entries()) expect(card).toContain(`- ${role}: sha256 \`${recipe.importance?.[role]?.sha256 ?? ''}\`, kept here as \`${copies[i] ?? ''}\``);
    // The edit used the files: a q_proj is the in-memory edit with them, not the method without them.
    const name = 'model.layers.1.self_attn.q_proj.weight';
    const tensor = f.pair.analysis.pair.tensors.find((t) => t.name === name);
    if (tensor === undefined) throw new Error(name);
    const exported = await Checkpoint.open(first);
    const values = await exported.readFloat32(name);
    await exported.close();
    const withFiles = editPair({ name, instruct: { shape: tensor.shape, values: tensor.thetaI }, thinking: { shape: tensor.shape, values: tensor.thetaT } }, baselineEdit(settingsWith(f, method))).values;
    expect(Array.from(values)).toEqual(Array.from(withFiles));
    const plain: BaselineSettings = method.method === 'aim' ? { method: 'task_arithmetic', lambda: method.lambda } : { method: 'ties', lambda: method.lambda, density: method.method === 'aim_ties' ? method.density : 0.5 };
    expect(Array.from(values)).not.toEqual(Array.from(baselineEdit(plain)(name, tensor.shape, tensor.thetaI, tensor.thetaT).values));
    // The importance files themselves are gone: the export folder is all the recipe needs.
    await Promise.all(Object.values(f.files).map((file) => rm(file)));
    const moved = join(f.root, 'moved');
    await cp(first, moved, { recursive: true });
    const again = join(f.root, 'again');
    await exportFromRecipe(JSON.parse(await readFile(join(moved, RECIPE_FILE), 'utf8')), { instruct: f.pair.instruct, thinking: f.pair.thinking, recipeDir: moved, outDir: again });
    expect(await fileHashes(again)).toEqual(await fileHashes(first));
  }));

  it('refuses a tampered or missing importance copy, naming it, and writes nothing', () => withImportancePair(async (f) => {
    const first = join(f.root, 'first');
    await exportWith(f, method, sourceOf(f, roles), first);
    const recipe: unknown = JSON.parse(await readFile(join(first, RECIPE_FILE), 'utf8'));
    const copy = join(first, copies.at(-1) as string);
    const paths = (outDir: string): ExportPaths => ({ instruct: f.pair.instruct, thinking: f.pair.thinking, recipeDir: first, outDir });
    const bytes = await readFile(copy);
    bytes[bytes.length - 2] = (bytes.at(-2) as number) ^ 1;
    await writeFile(copy, bytes);
    await expect(exportFromRecipe(recipe, paths(join(f.root, 'tampered')))).rejects.toThrow(new RegExp(`^${copy.replaceAll('.', '\\.')}: SHA-256 [0-9a-f]{64} differs from the recipe's [0-9a-f]{64} \\((AIM|LEWIS) importance`));
    await rm(copy);
    await expect(exportFromRecipe(recipe, paths(join(f.root, 'missing')))).rejects.toThrow(`${copy}: the export folder has no such file`);
    // Without the export folder a recipe that reads importance files says where they are.
    await expect(exportFromRecipe(recipe, { instruct: f.pair.instruct, thinking: f.pair.thinking, outDir: join(f.root, 'nowhere') })).rejects.toThrow(/give the recipe's export folder/);
    expect((await readdir(f.root)).filter((n) => ['missing', 'nowhere', 'tampered'].includes(n))).toEqual([]);
  }));

  it('refuses to export without the importance files, naming what is missing', () => withImportancePair(async (f) => {
    await expect(exportWith(f, method, undefined, join(f.root, 'out'))).rejects.toThrow(new RegExp(`a ${method.method} merge reads the (AIM|LEWIS) importance`));
    expect(await readdir(f.root)).not.toContain('out');
  }));
});

describe('the recipe\'s importance section', () => {
  it('is null for the other methods and must match the method', () => withImportancePair(async (f) => {
    const ties = await exportWith(f, { method: 'ties', lambda: 0.3, density: 0.5 }, undefined, join(f.root, 'ties'));
    expect(ties.importance).toBeNull();
    const aim = await exportWith(f, { method: 'aim', lambda: 0.3, omega: 0.5 }, sourceOf(f, ['aim']), join(f.root, 'aim'));
    expect(() => parseRecipe({ ...ties, importance: aim.importance })).toThrow(/a recipe for ties carries no importance files/);
    expect(() => parseRecipe({ ...aim, importance: null })).toThrow(/a recipe for aim carries the importance files aim/);
    // A copy name is one of the fixed names: a recipe cannot point outside its folder.
    expect(() => parseRecipe({ ...aim, importance: { aim: { sha256: aim.importance?.aim?.sha256, file: '../aim.safetensors' } } })).toThrow(/importance/);
  }));
});
