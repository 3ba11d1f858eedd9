/**
 * `crane merge` of the methods that read importance files, on the tiny analysed project: AIM-TA
 * and AIM-TIES from the analysis' AIM file, LEWIS from the analysis (measured there on first use)
 * or from --importance-base/--importance-tuned; each export is rebuilt byte for byte by
 * `merge --recipe` after the analysis folder is gone, and a tampered or missing importance copy
 * is refused naming the file, with nothing written.
 */
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../tensor/backend.ts';
import { analysedProject, type AnalysedProject } from '../pipeline/testing/analysed-project.ts';
import { runCli } from './testing.ts';

let project: AnalysedProject;
const EXPORTS = {
  aim: { flags: ['--method', 'aim', '--alpha', '0.6'], copies: ['crane_aim_importance.safetensors'] },
  aim_ties: { flags: ['--method', 'aim_ties', '--alpha', '0.6', '--omega', '0.2'], copies: ['crane_aim_importance.safetensors'] },
  lewis: { flags: ['--method', 'lewis', '--alpha', '0.6'], copies: ['crane_lewis_importance_base.json', 'crane_lewis_importance_tuned.json'] },
} as const;
const exportDir = (name: string) => join(project.root, `export-${name}`);
const filesDir = () => join(project.root, 'lewis-files');

beforeAll(async () => {
  await initBackend('wasm');
  project = await analysedProject(await mkdtemp(join(tmpdir(), 'crane-merge-importance-')));
  for (const [name, { flags }] of Object.entries(EXPORTS)) {
    const merged = await runCli(['merge', project.instruct, project.thinking, ...flags, '--analysis', project.outDir, '--out', exportDir(name), '--shard-size', '20KB']);
    expect(merged.code, merged.err).toBe(0);
  }
  // LEWIS from named files: the analysis' own, copied elsewhere.
  await cp(join(project.outDir, 'stages', 'lewis'), filesDir(), { recursive: true });
  const named = await runCli(['merge', project.instruct, project.thinking, ...EXPORTS.lewis.flags, '--importance-base', join(filesDir(), 'lewis-importance-base.json'),
    '--importance-tuned', join(filesDir(), 'lewis-importance-tuned.json'), '--out', exportDir('lewis-named'), '--shard-size', '20KB']);
  expect(named.code, named.err).toBe(0);
  await rm(project.outDir, { recursive: true });
}, 240_000);

afterAll(() => rm(project.root, { recursive: true, force: true }));

async function fileHashes(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir)).sort();
  return Object.fromEntries(await Promise.all(files.map(async (f) => [f, createHash('sha256').update(await readFile(join(dir, f))).digest('hex')] as const)));
}

const fromRecipe = (recipeDir: string, out: string) => runCli(['merge', '--recipe', join(recipeDir, 'crane_recipe.json'), project.instruct, project.thinking, '--out', out]);

describe('crane merge with importance files', () => {
  it.each(Object.entries(EXPORTS))('%s: the export carries its importance copies and merge --recipe rebuilds it byte for byte without the analysis', async (name, { copies }) => {
    const first = await fileHashes(exportDir(name));
    expect(Object.keys(first)).toEqual(expect.arrayContaining([...copies, 'crane_recipe.json']));
    const recipe = JSON.parse(await readFile(join(exportDir(name), 'crane_recipe.json'), 'utf8')) as { importance: Record<string, { sha256: string; file: string }> };
    expect(Object.values(recipe.importance).map((e) => [e.file, e.sha256])).toEqual(copies.map((c) => [c, first[c]]));
    const again = join(project.root, `again-${name}`);
    const rebuilt = await fromRecipe(exportDir(name), again);
    expect(rebuilt.code, rebuilt.err).toBe(0);
    expect(await fileHashes(again)).toEqual(first);
  });

  it('LEWIS from --importance-base/--importance-tuned is the same merge as from the analysis', async () => {
    const [fromAnalysis, fromFiles] = [await fileHashes(exportDir('lewis')), await fileHashes(exportDir('lewis-named'))];
    const weights = (h: Record<string, string>) => Object.entries(h).filter(([f]) => f.startsWith('model'));
    expect(weights(fromFiles)).toEqual(weights(fromAnalysis));
  });

  it('refuses a tampered or missing importance copy, naming it, and writes nothing', async () => {
    const tampered = join(project.root, 'tampered');
    await cp(exportDir('lewis'), tampered, { recursive: true });
    const copy = join(tampered, 'crane_lewis_importance_tuned.json');
    await writeFile(copy, (await readFile(copy, 'utf8')).replace('}', ' }'));
    const result = await fromRecipe(tampered, join(project.root, 'from-tampered'));
    expect(result.code).not.toBe(0);
    expect(result.err).toMatch(new RegExp(`${copy.replaceAll('.', '\\.')}: SHA-256 [0-9a-f]{64} differs from the recipe's [0-9a-f]{64} \\(LEWIS importance of the fine-tuned model \\(Thinking\\)\\)`));
    const missing = join(project.root, 'missing');
    await cp(exportDir('aim'), missing, { recursive: true });
    await rm(join(missing, 'crane_aim_importance.safetensors'));
    const gone = await fromRecipe(missing, join(project.root, 'from-missing'));
    expect(gone.code).not.toBe(0);
    expect(gone.err).toContain(`${join(missing, 'crane_aim_importance.safetensors')}: the export folder has no such file (the AIM importance of Instruct)`);
    expect((await readdir(project.root)).filter((n) => n.startsWith('from-'))).toEqual([]);
  });

  it('says what AIM and LEWIS need when it is missing, and refuses importance files with other methods', async () => {
    const out = join(project.root, 'never');
    const aim = await runCli(['merge', project.instruct, project.thinking, '--method', 'aim', '--out', out]);
    expect(aim.err).toMatch(/--method aim needs --analysis DIR/);
    const lewis = await runCli(['merge', project.instruct, project.thinking, '--method', 'lewis', '--importance-base', 'a.json', '--out', out]);
    expect(lewis.err).toMatch(/--method lewis needs --importance-base F \(Instruct\) and --importance-tuned F \(Thinking\), or --analysis DIR/);
    const ties = await runCli(['merge', project.instruct, project.thinking, '--method', 'ties', '--importance-base', 'a.json', '--importance-tuned', 'b.json', '--out', out]);
    expect(ties.err).toMatch(/--importance-base\/--importance-tuned go with --method lewis/);
    expect([aim.code, lewis.code, ties.code]).toEqual([2, 2, 2]);
    expect(await readdir(project.root)).not.toContain('never');
  });
});
