/**
 * `overwrite` replaces only a previous export: a folder with a valid crane_recipe.json. Any other
 * folder — a user's, a source checkpoint, one whose recipe is broken — is refused and untouched.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { withTempDir } from '../io/testing/fixtures.ts';
import { exportMerge, type MergeExportOptions } from './export-checkpoint.ts';
import { RECIPE_FILE } from './recipe.ts';
import { writeTinyCheckpoints } from './testing/tiny-checkpoints.ts';

async function withOpenPair(body: (root: string, run: (outDir: string) => Promise<unknown>) => Promise<void>): Promise<void> {
  await withTempDir(async (root) => {
    const pair = await writeTinyCheckpoints(root);
    const [instruct, thinking] = [await Checkpoint.open(pair.instruct), await Checkpoint.open(pair.thinking)];
    const options = (outDir: string): MergeExportOptions => ({
      instruct, thinking, method: { method: 'task_arithmetic', lambda: 0.3 }, dtype: 'source', outDir, overwrite: true,
    });
    try {
      await body(root, (outDir) => exportMerge(options(outDir)));
    } finally {
      await Promise.all([instruct.close(), thinking.close()]);
    }
  });
}

describe('export --overwrite', () => {
  it('replaces a previous export', () => withOpenPair(async (root, run) => {
    const out = join(root, 'out');
    await run(out);
    await writeFile(join(out, 'stale.txt'), 'from before');
    await run(out);
    expect(await readdir(out)).not.toContain('stale.txt');
    expect(await readdir(out)).toContain(RECIPE_FILE);
  }));

  it('refuses a folder that is not an export and leaves it as it was', () => withOpenPair(async (root, run) => {
    const out = join(root, 'documents');
    await mkdir(out);
    await writeFile(join(out, 'thesis.tex'), 'years of work');
    await expect(run(out)).rejects.toThrow(new RegExp(`^${out}: exists and is not a previous CRANE export \\(${join(out, RECIPE_FILE)}: file not found\\)`));
    expect(await readdir(out)).toEqual(['thesis.tex']);
    await expect(run(join(root, 'instruct'))).rejects.toMatchObject({ code: 'exists' });
    expect(await readdir(join(root, 'instruct'))).toContain('model.safetensors.index.json');
  }));

  it('refuses a folder whose recipe does not parse as one', () => withOpenPair(async (root, run) => {
    const out = join(root, 'out');
    await run(out);
    const recipe = join(out, RECIPE_FILE);
    await writeFile(recipe, JSON.stringify({ ...JSON.parse(await readFile(recipe, 'utf8')) as object, format: 'something-else' }));
    await expect(run(out)).rejects.toThrow(/is not a previous CRANE export .*is not a valid recipe/);
    expect(await readdir(out)).toContain('README.md');
  }));
});
