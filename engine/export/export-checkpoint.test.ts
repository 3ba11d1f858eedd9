import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANALYSIS_FILES } from '../analysis/analysis-store.ts';
import { craneEdit } from '../crane/crane-edit.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { editPair } from '../crane/tensor-pair.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { decodeHalf, encodeHalf } from '../io/half-float.ts';
import { withTempDir, writeFixtureCheckpoint } from '../io/testing/fixtures.ts';
import { exportFromRecipe, exportMerge, type MergeExportOptions } from './export-checkpoint.ts';
import { RECIPE_FILE } from './recipe.ts';
import { INSTRUCT_ONLY, INTEGER_TENSOR, THINKING_ONLY, writeTinyCheckpoints, type TinyCheckpoints } from './testing/tiny-checkpoints.ts';

const defaults = defaultResolvedSettings({ think: [4, 5], special: [1] });
// The protected-row edits travel in the recipe next to the rows they gave (here: row 1 added by hand).
const settings: ResolvedCraneSettings = { ...defaults, special: { ...defaults.special, protectedTokens: { add: [1], remove: [] } }, overrideScales: { 'attention@1': 1.5 } };

async function withPair<T>(body: (root: string, pair: TinyCheckpoints, open: { instruct: Checkpoint; thinking: Checkpoint }) => Promise<T>, poison?: string): Promise<T> {
  return withTempDir(async (root) => {
    const pair = await writeTinyCheckpoints(root, poison === undefined ? {} : { poison });
    const instruct = await Checkpoint.open(pair.instruct);
    const thinking = await Checkpoint.open(pair.thinking);
    try {
      return await body(root, pair, { instruct, thinking });
    } finally {
      await instruct.close();
      await thinking.close();
    }
  });
}

const craneExport = (pair: TinyCheckpoints, open: { instruct: Checkpoint; thinking: Checkpoint }, outDir: string, extra: Partial<MergeExportOptions> = {}): MergeExportOptions => ({
  ...open, method: { method: 'crane', settings }, analysisDir: pair.analysisDir, dtype: 'BF16', maxShardBytes: 512, outDir, ...extra,
});

async function fileHashes(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir)).sort();
  return Object.fromEntries(await Promise.all(files.map(async (f) => [f, createHash('sha256').update(await readFile(join(dir, f))).digest('hex')] as const)));
}

describe('export', () => {
  it('reproduces an export bit for bit from its recipe alone', () => withPair(async (root, pair, open) => {
    const first = await exportMerge(craneExport(pair, open, join(root, 'out1')));
    expect(first.shards.length).toBeGreaterThan(1);
    const recipe = JSON.parse(await readFile(join(root, 'out1', RECIPE_FILE), 'utf8')) as unknown;
    await exportFromRecipe(recipe, { instruct: pair.instruct, thinking: pair.thinking, analysis: pair.analysisDir, outDir: join(root, 'out2') });
    const [a, b] = [await fileHashes(join(root, 'out1')), await fileHashes(join(root, 'out2'))];
    expect(Object.keys(a)).toEqual(expect.arrayContaining(['config.json', 'model.safetensors.index.json', 'tokenizer.json', 'generation_config.json', RECIPE_FILE, 'README.md']));
    expect(b).toEqual(a);
  }));

  it('reloads to the in-memory edit rounded to the output dtype, with copies, side files, recipe and card', () => withPair(async (root, pair, open) => {
    const outDir = join(root, 'out');
    const result = await exportMerge(craneExport(pair, open, outDir));
    const out = await Checkpoint.open(outDir);
    try {
      const edit = craneEdit(settings, { gate: pair.analysis.gate, projector: (k) => pair.analysis.projectors.get(k) });
      for (const t of pair.analysis.pair.tensors) {
        const expected = editPair({ name: t.name, instruct: { shape: t.shape, values: t.thetaI }, thinking: { shape: t.shape, values: t.thetaT } }, edit).values;
        expect(out.tensor(t.name).dtype).toBe('BF16');
        expect(await out.readFloat32(t.name), t.name).toEqual(decodeHalf('BF16', encodeHalf('BF16', expected)));
      }
      expect(Array.from(await out.readFloat32(INSTRUCT_ONLY))).toEqual([0.5, -0.5]);
      expect(Array.from(await out.readFloat32(THINKING_ONLY))).toEqual([0.25, -0.25]);
      expect(out.tensor(INTEGER_TENSOR).dtype).toBe('I32');
      expect(Array.from(await out.readRaw(INTEGER_TENSOR) as Int32Array)).toEqual([0, 1, 2]);
    } finally {
      await out.close();
    }
    expect(JSON.parse(await readFile(join(outDir, 'config.json'), 'utf8'))).toMatchObject({ torch_dtype: 'bfloat16', hidden_size: 4 });
    expect(await readFile(join(outDir, 'tokenizer.json'), 'utf8')).toBe(await readFile(join(pair.instruct, 'tokenizer.json'), 'utf8'));
    const recipe = result.recipe;
    expect(Object.keys(recipe.inputs.instruct.files)).toEqual(expect.arrayContaining(['config.json', 'model.safetensors.index.json', 'tokenizer.json', 'generation_config.json']));
    // Hashed on a worker while the tensors were written: the file's own SHA-256.
    expect(recipe.inputs.thinking.files['model.safetensors']).toBe(createHash('sha256').update(await readFile(join(pair.thinking, 'model.safetensors'))).digest('hex'));
    expect(recipe.method).toEqual({ method: 'crane', settings });
    expect(recipe.output).toEqual({ dtype: 'BF16', maxShardBytes: 512 });
    const card = await readFile(join(outDir, 'README.md'), 'utf8');
    expect(card).toContain(recipe.inputs.thinking.files['model.safetensors']);
    expect(card).toContain(`${THINKING_ONLY}: absent from the Instruct checkpoint`);
    expect(result.notes).toEqual(expect.arrayContaining([`${INSTRUCT_ONLY}: absent from the Thinking checkpoint: Instruct copied`]));
  }));

  it('refuses NaN in an input, naming file and tensor, and writes nothing', () => withPair(async (root, pair, open) => {
    const error = await exportMerge(craneExport(pair, open, join(root, 'out'))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect(error).toMatchObject({ code: 'non-finite', tensor: 'model.layers.1.self_attn.v_proj.weight', file: join(pair.thinking, 'model.safetensors') });
    expect((error as Error).message).toMatch(/NaN at flat index 1/);
    expect((await readdir(root)).sort()).toEqual(['analysis', 'instruct', 'thinking']);
  }, 'model.layers.1.self_attn.v_proj.weight'));

  it('refuses a pair whose Instruct has no tensors, before hashing anything, and writes nothing', () => withPair(async (root, pair, open) => {
    const emptyDir = await writeFixtureCheckpoint(join(root, 'empty'), [], { config: JSON.parse(await readFile(join(pair.instruct, 'config.json'), 'utf8')) as Record<string, unknown> });
    const empty = await Checkpoint.open(emptyDir);
    const hashed: string[] = [];
    try {
      const run = exportMerge({ ...craneExport(pair, { ...open, instruct: empty }, join(root, 'out')), onProgress: (p) => hashed.push(p.phase) });
      await expect(run).rejects.toThrow(/cannot be paired with .*\n {2}the Instruct checkpoint has no tensors: there is nothing to edit/);
    } finally {
      await empty.close();
    }
    expect(hashed).toEqual([]);
    expect(await readdir(root)).not.toContain('out');
  }));

  it('refuses an analysis file that is a FIFO instead of blocking on it', async (context) => {
    if (process.platform === 'win32') context.skip();
    await withPair(async (root, pair, open) => {
      await rm(join(pair.analysisDir, ANALYSIS_FILES.gate));
      execFileSync('mkfifo', [join(pair.analysisDir, ANALYSIS_FILES.gate)]);
      await expect(exportMerge(craneExport(pair, open, join(root, 'out')))).rejects.toThrow(`${join(pair.analysisDir, ANALYSIS_FILES.gate)}: is a FIFO (named pipe), not a regular file`);
    });
  });

  it('stops on cancel and leaves no output', () => withPair(async (root, pair, open) => {
    const controller = new AbortController();
    const onProgress = (p: { phase: string; tensorsDone?: number }) => {
      if (p.phase === 'write' && (p.tensorsDone ?? 0) >= 3) controller.abort();
    };
    await expect(exportMerge(craneExport(pair, open, join(root, 'out'), { signal: controller.signal, onProgress }))).rejects.toThrow(/cancelled/);
    expect((await readdir(root)).sort()).toEqual(['analysis', 'instruct', 'thinking']);
  }));

  it('refuses an existing output folder and leaves it untouched', () => withPair(async (root, pair, open) => {
    const outDir = join(root, 'out');
    await mkdir(outDir);
    await writeFile(join(outDir, 'keep.txt'), 'mine');
    await expect(exportMerge(craneExport(pair, open, outDir))).rejects.toMatchObject({ code: 'exists' });
    expect(await readdir(outDir)).toEqual(['keep.txt']);
  }));

  it('refuses a recipe whose input files differ from the ones at hand', () => withPair(async (root, pair, open) => {
    await exportMerge(craneExport(pair, open, join(root, 'out1')));
    const recipe = JSON.parse(await readFile(join(root, 'out1', RECIPE_FILE), 'utf8')) as unknown;
    await writeFile(join(pair.instruct, 'generation_config.json'), '{"temperature":0.6}');
    await expect(exportFromRecipe(recipe, { instruct: pair.instruct, thinking: pair.thinking, analysis: pair.analysisDir, outDir: join(root, 'out2') }))
      .rejects.toThrow(/generation_config.json: SHA-256 [0-9a-f]+ differs from the recipe's/);
    await expect(exportFromRecipe(recipe, { instruct: pair.instruct, thinking: pair.thinking, outDir: join(root, 'out3') })).rejects.toThrow(/needs the analysis folder/);
  }));

  it('reproduces a recipe written before exports carried their analysis only with the analysis folder, checking its hashes', () => withPair(async (root, pair, open) => {
    const first = await exportMerge(craneExport(pair, open, join(root, 'out1')));
    // As such a recipe was written: no `embedded`, and no copies beside it.
    const { embedded, ...files } = first.recipe.analysis ?? { files: {} };
    expect(embedded).toEqual({ [ANALYSIS_FILES.gate]: 'crane_gate_table.json', [ANALYSIS_FILES.projectors]: 'crane_analysis.safetensors' });
    const old = { ...first.recipe, analysis: files };
    const paths = { instruct: pair.instruct, thinking: pair.thinking, recipeDir: join(root, 'out1') };
    await expect(exportFromRecipe(old, { ...paths, outDir: join(root, 'out2') })).rejects.toThrow(/needs the analysis folder .*; this recipe predates exports that carry their analysis/);
    const again = await exportFromRecipe(old, { ...paths, analysis: pair.analysisDir, outDir: join(root, 'out3') });
    expect(again.recipe).toEqual(first.recipe);
    expect(await fileHashes(join(root, 'out3'))).toEqual(await fileHashes(join(root, 'out1')));
    // --analysis wins over the export's copies, and must be the recipe's analysis all the same.
    const gate = join(pair.analysisDir, ANALYSIS_FILES.gate);
    await writeFile(gate, `${(await readFile(gate, 'utf8')).trimEnd()}\n\n`);
    await expect(exportFromRecipe(first.recipe, { ...paths, analysis: pair.analysisDir, outDir: join(root, 'out4') }))
      .rejects.toThrow(`${gate}: SHA-256`);
    expect((await readdir(root)).sort()).toEqual(['analysis', 'instruct', 'out1', 'out3', 'thinking']);
  }));

  it('exports a baseline through the same path, reproducibly, without an analysis', () => withPair(async (root, pair, open) => {
    const result = await exportMerge({ ...open, method: { method: 'dare', lambda: 0.3, dropProbability: 0.5, seed: 7 }, dtype: 'source', outDir: join(root, 'a') });
    expect(result.recipe.analysis).toBeNull();
    await exportFromRecipe(result.recipe, { instruct: pair.instruct, thinking: pair.thinking, outDir: join(root, 'b') });
    expect(await fileHashes(join(root, 'b'))).toEqual(await fileHashes(join(root, 'a')));
    expect(await readFile(join(root, 'a', 'config.json'), 'utf8')).toBe(await readFile(join(pair.instruct, 'config.json'), 'utf8'));
  }));
});
