import { describe, expect, it } from 'vitest';
import { defaultSteepness } from '../protocol/gsp-mask.ts';
import { parseRecipe, RECIPE_FORMAT_VERSION } from './recipe.ts';

const HASH = 'a'.repeat(64);

/** A recipe as version 1 wrote it: flat special-tensor strengths, overrides by block key, optional k. */
function recipeV1(method: unknown) {
  return {
    format: 'crane-recipe', formatVersion: 1, engineVersion: '0.1.0', method,
    analysis: { files: { 'gate_table.json': HASH } },
    inputs: { instruct: { files: { 'model.safetensors': HASH } }, thinking: { files: { 'model.safetensors': HASH } } },
    output: { dtype: 'BF16', maxShardBytes: 5e9 },
  };
}

const V1_SETTINGS = {
  alpha: 0.25, keepQuantile: 0.5, tau: 0.05, stages: { threshold: true, gate: true, gsp: false }, granularity: 'fine',
  overrides: { 'attention@1': 1.5, 'norm@*': 0 }, tokens: { think: [4, 5], special: [1] }, thinkStrength: 0.6,
};

describe('crane_recipe.json version 1', () => {
  it('reads CRANE settings in the current vocabulary, with the defaults version 1 applied', () => {
    const recipe = parseRecipe(recipeV1({ method: 'crane', settings: V1_SETTINGS }));
    expect(recipe.formatVersion).toBe(RECIPE_FORMAT_VERSION);
    expect(recipe.method).toEqual({
      method: 'crane',
      settings: {
        alpha: 0.25, keepQuantile: 0.5, tau: 0.05, steepness: defaultSteepness(0.05), stages: { threshold: true, gate: true, gsp: false }, granularity: 'fine',
        special: { thinkRows: 0.6, lmHeadScale: 0.03, routerAlphaFraction: 1 / 3 },
        overrideScales: { 'attention@1': 1.5, 'norm@*': 0 }, tokens: { think: [4, 5], special: [1] },
      },
    });
  });

  it('keeps a written k and reads the baselines unchanged', () => {
    const withK = parseRecipe(recipeV1({ method: 'crane', settings: { ...V1_SETTINGS, steepness: 40 } })).method;
    expect(withK.method === 'crane' && withK.settings.steepness).toBe(40);
    expect(parseRecipe(recipeV1({ method: 'dare', lambda: 0.3, dropProbability: 0.5, seed: 2 })).method).toEqual({ method: 'dare', lambda: 0.3, dropProbability: 0.5, seed: 2 });
  });

  it('holds a recipe to the protocol\'s ranges, naming the field', () => {
    expect(() => parseRecipe(recipeV1({ method: 'crane', settings: { ...V1_SETTINGS, alpha: 7 } }))).toThrow(/crane_recipe\.json: is not a valid recipe[\s\S]*alpha/);
    expect(() => parseRecipe(recipeV1({ method: 'task_arithmetic', lambda: -1 }))).toThrow(/lambda/);
  });
});

describe('crane_recipe.json version 2', () => {
  const recipeV2 = (method: unknown) => ({ ...recipeV1(method), formatVersion: 2 });

  it('reads every method but SLERP unchanged, as the current version with no importance files', () => {
    const ties = parseRecipe(recipeV2({ method: 'ties', lambda: 0.3, density: 0.2 }));
    expect(ties.formatVersion).toBe(RECIPE_FORMAT_VERSION);
    expect(ties.method).toEqual({ method: 'ties', lambda: 0.3, density: 0.2 });
    expect(ties.importance).toBeNull();
  });

  it.each([1, 2])('refuses a version %i SLERP recipe by name: its formula is not the one this engine computes', (version) => {
    expect(() => parseRecipe({ ...recipeV1({ method: 'slerp', t: 0.5 }), formatVersion: version }, '/x/crane_recipe.json')).toThrow(
      `/x/crane_recipe.json: is a version ${version} SLERP recipe, made with crane_merge.py's router formula`,
    );
  });
});

describe('crane_recipe.json version 3', () => {
  const recipeV3 = (method: unknown) => ({ ...recipeV1(method), formatVersion: 3 });

  it('reads SLERP and the others unchanged, with no importance files (no version 3 recipe held AIM or LEWIS)', () => {
    const slerp = parseRecipe(recipeV3({ method: 'slerp', t: 0.5 }));
    expect(slerp).toMatchObject({ formatVersion: 4, method: { method: 'slerp', t: 0.5 }, importance: null });
    expect(() => parseRecipe(recipeV3({ method: 'aim', lambda: 0.3, omega: 0.5 }))).toThrow(/a recipe for aim carries the importance files aim/);
  });
});
