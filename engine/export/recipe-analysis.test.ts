import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANALYSIS_FILES } from '../analysis/analysis-store.ts';
import { withTempDir } from '../io/testing/fixtures.ts';
import { analysisFolder, EMBEDDED_ANALYSIS_FILES, exportFolder, loadEditAnalysis, writeEmbeddedAnalysis } from './recipe-analysis.ts';
import { parseRecipe } from './recipe.ts';
import { writeTinyCheckpoints } from './testing/tiny-checkpoints.ts';

const sha256 = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex');

describe('the analysis an export reads and carries', () => {
  it('hashes the files it reads and copies exactly those bytes, which load back as the same edit analysis', () => withTempDir(async (root) => {
    const pair = await writeTinyCheckpoints(root);
    const loaded = await loadEditAnalysis(analysisFolder(pair.analysisDir));
    expect(loaded.files).toEqual({
      [ANALYSIS_FILES.gate]: await sha256(join(pair.analysisDir, ANALYSIS_FILES.gate)),
      [ANALYSIS_FILES.projectors]: await sha256(join(pair.analysisDir, ANALYSIS_FILES.projectors)),
    });
    const work = join(root, 'export');
    await mkdir(work);
    await writeEmbeddedAnalysis(work, loaded);
    const copy = await loadEditAnalysis(exportFolder(work), loaded.files);
    expect(copy.files).toEqual(loaded.files);
    expect(copy.context.gate).toEqual(pair.analysis.gate);
    const key = [...pair.analysis.projectors.keys()][0] as string;
    expect(copy.context.projector(key)).toEqual(pair.analysis.projectors.get(key));
  }));

  it('names the missing copy in an export folder', () => withTempDir(async (root) => {
    await expect(loadEditAnalysis(exportFolder(root))).rejects.toThrow(`${join(root, EMBEDDED_ANALYSIS_FILES[ANALYSIS_FILES.gate])}: the export folder has no crane_gate_table.json (the edit's gate-table.json)`);
  }));

  it('accepts only the engine\'s own copy names in a recipe (a recipe cannot point the engine elsewhere)', () => {
    const hash = 'a'.repeat(64);
    const recipe = (embedded: unknown) => ({
      format: 'crane-recipe', formatVersion: 3, engineVersion: '0.1.0', method: { method: 'slerp', t: 0.5 },
      analysis: { files: { [ANALYSIS_FILES.gate]: hash }, embedded },
      inputs: { instruct: { files: { 'model.safetensors': hash } }, thinking: { files: { 'model.safetensors': hash } } },
      output: { dtype: 'BF16', maxShardBytes: 5e9 },
    });
    expect(parseRecipe(recipe({ ...EMBEDDED_ANALYSIS_FILES })).analysis?.embedded).toEqual(EMBEDDED_ANALYSIS_FILES);
    expect(() => parseRecipe(recipe({ ...EMBEDDED_ANALYSIS_FILES, [ANALYSIS_FILES.projectors]: '../elsewhere.safetensors' }))).toThrow(/crane_recipe\.json: is not a valid recipe[\s\S]*embedded/);
  });
});
