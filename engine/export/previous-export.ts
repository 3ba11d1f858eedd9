/**
 * What `--overwrite` may replace: only a folder that a previous export wrote, recognised by its
 * `crane_recipe.json` parsing as a recipe. Replacing deletes the old folder, so a mistyped
 * --out pointing at a home folder or a source checkpoint must be refused, not emptied.
 *
 *   assertPreviousExport(dir)   CheckpointError 'exists' naming the folder and what is missing
 */
import { join } from 'node:path';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readJsonObject } from '../io/input-file.ts';
import { parseRecipe, RECIPE_FILE } from './recipe.ts';

export async function assertPreviousExport(dir: string): Promise<void> {
  try {
    const recipePath = join(dir, RECIPE_FILE);
    parseRecipe(await readJsonObject(recipePath, 'metadata'), recipePath);
  } catch (error) {
    if (!(error instanceof CheckpointError)) throw error;
    throw new CheckpointError(
      'exists',
      dir,
      `exists and is not a previous CRANE export (${error.message}); --overwrite replaces only a folder an export wrote — choose another output folder or remove this one yourself`,
    );
  }
}
