/**
 * `crane merge --recipe` from an export folder alone: a CRANE export of the tiny analysed project
 * is reproduced bit for bit after its analysis folder is gone; a tampered copy of the analysis or
 * a different input checkpoint is refused, named, and nothing is written (unless applied on purpose).
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
let exported: string;

beforeAll(async () => {
  await initBackend('wasm');
  project = await analysedProject(await mkdtemp(join(tmpdir(), 'crane-merge-')));
  exported = join(project.root, 'exported');
  const merged = await runCli(['merge', project.instruct, project.thinking, '--analysis', project.outDir, '--out', exported, '--shard-size', '20KB']);
  expect(merged.code, merged.err).toBe(0);
  // The analysis folder is gone: only the export folder and the pair remain.
  await rm(project.outDir, { recursive: true });
});

afterAll(() => rm(project.root, { recursive: true, force: true }));

async function fileHashes(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir)).sort();
  return Object.fromEntries(await Promise.all(files.map(async (f) => [f, createHash('sha256').update(await readFile(join(dir, f))).digest('hex')] as const)));
}

const fromRecipe = (recipeDir: string, out: string, thinking = project.thinking) =>
  runCli(['merge', '--recipe', join(recipeDir, 'crane_recipe.json'), project.instruct, thinking, '--out', out]);

describe('crane merge --recipe from an export folder', () => {
  it('reproduces the export bit for bit without the analysis folder, from a moved export', async () => {
    const moved = join(project.root, 'moved-export');
    await cp(exported, moved, { recursive: true });
    const out = join(project.root, 'again');
    const again = await fromRecipe(moved, out);
    expect(again.code, again.err).toBe(0);
    const [a, b] = [await fileHashes(exported), await fileHashes(out)];
    expect(Object.keys(a)).toEqual(expect.arrayContaining(['crane_analysis.safetensors', 'crane_gate_table.json', 'crane_recipe.json']));
    expect(Object.keys(a).filter((f) => f.startsWith('model-')).length).toBeGreaterThan(1);
    expect(b).toEqual(a);
    const recipe = JSON.parse(await readFile(join(out, 'crane_recipe.json'), 'utf8')) as { analysis: { files: Record<string, string> } };
    expect(recipe.analysis.files['projectors.safetensors']).toBe(a['crane_analysis.safetensors']);
    expect(recipe.analysis.files['gate-table.json']).toBe(a['crane_gate_table.json']);
    // The model card's reproduce line needs no analysis folder, and says where the copies are.
    const card = await readFile(join(out, 'README.md'), 'utf8');
    expect(card).toContain(`- \`projectors.safetensors\` sha256 \`${a['crane_analysis.safetensors']}\`, kept here as \`crane_analysis.safetensors\``);
    expect(card).toMatch(/crane merge --recipe crane_recipe\.json --instruct INSTRUCT_DIR --thinking THINKING_DIR OUT_DIR/);
  });

  it('refuses a tampered copy of the analysis, naming it, and writes nothing', async () => {
    const tampered = join(project.root, 'tampered');
    await cp(exported, tampered, { recursive: true });
    const projectors = join(tampered, 'crane_analysis.safetensors');
    const bytes = await readFile(projectors);
    bytes[bytes.length - 1] = (bytes.at(-1) as number) ^ 1;
    await writeFile(projectors, bytes);
    const result = await fromRecipe(tampered, join(project.root, 'from-tampered'));
    expect(result.code).not.toBe(0);
    expect(result.err).toContain(`${projectors}: SHA-256`);
    expect(result.err).toMatch(/differs from the recipe's [0-9a-f]{64} \(analysis projectors\.safetensors\)/);
    expect(await readdir(project.root)).not.toContain('from-tampered');
  });

  it('refuses a Thinking checkpoint other than the recipe\'s, naming the file, and writes nothing', async () => {
    const other = join(project.root, 'other-thinking');
    await cp(project.thinking, other, { recursive: true });
    // One weight differs in its lowest mantissa bit: a real, readable, different checkpoint.
    const shard = join(other, 'model.safetensors');
    const bytes = await readFile(shard);
    bytes[bytes.length - 4] = (bytes.at(-4) as number) ^ 1;
    await writeFile(shard, bytes);
    const result = await fromRecipe(exported, join(project.root, 'from-other'), other);
    expect(result.code).not.toBe(0);
    expect(result.err).toMatch(new RegExp(`${shard.replaceAll('.', '\\.')}: SHA-256 [0-9a-f]{64} differs from the recipe's [0-9a-f]{64} \\(Thinking\\)`));
    expect(await readdir(project.root)).not.toContain('from-other');
    // Applied on purpose to the other checkpoint: a new export whose recipe records its hashes.
    const applied = await runCli(['merge', '--recipe', join(exported, 'crane_recipe.json'), project.instruct, other, '--out', join(project.root, 'applied'), '--allow-different-inputs', '--json']);
    expect(applied.code, applied.err).toBe(0);
    const recipe = (JSON.parse(applied.out) as { recipe: { inputs: { thinking: { files: Record<string, string> } } } }).recipe;
    expect(recipe.inputs.thinking.files['model.safetensors']).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect((await runCli(['merge', project.instruct, other, '--out', join(project.root, 'x'), '--allow-different-inputs'])).err).toMatch(/--allow-different-inputs goes with --recipe/);
  });
});

describe('crane merge and the tokenizer', () => {
  it('builds Instruct\'s tokenizer for CRANE\'s token rows only, not for a baseline', async () => {
    // Weights-only folders (the pair check compares the two sides' tokenizers, so neither has one).
    const [instruct, thinking] = [join(project.root, 'instruct-weights'), join(project.root, 'thinking-weights')];
    for (const [from, to] of [[project.instruct, instruct], [project.thinking, thinking]] as const) {
      await cp(from, to, { recursive: true });
      await rm(join(to, 'tokenizer.json'));
    }
    const warning = `${instruct} has no tokenizer.json: embedding and lm_head rows get no think/protected rules`;
    const baseline = await runCli(['merge', instruct, thinking, '--method', 'task_arithmetic', '--out', join(project.root, 'ta-no-tokenizer')]);
    expect(baseline.code, baseline.err).toBe(0);
    expect(baseline.err).not.toContain('tokenizer.json');
    const crane = await runCli(['merge', instruct, thinking, '--no-gate', '--no-gsp', '--out', join(project.root, 'crane-no-tokenizer')]);
    expect(crane.code, crane.err).toBe(0);
    expect(crane.err).toContain(`warning: ${warning}`);
  });
});
