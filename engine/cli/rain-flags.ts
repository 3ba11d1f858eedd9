/**
 * RAIN's extra inputs on `crane merge` and `crane verify`: the Base checkpoint and the two
 * calibration files, in the reference's formats (engine/pipeline/rain-calibration.ts).
 *
 *   RAIN_FLAGS, RAIN_FLAGS_HELP
 *   rainInputsFromFlags(values) → { base, calibration, settings } | undefined
 *   withCheckpoints(dirs, body)   open them all, close them all
 *
 * --method rain without --base is refused ("RAIN needs a Base checkpoint: pass --base"), and so
 * are --base or the RAIN files with another method (a typo in --method must not silently drop them).
 */
import { Checkpoint } from '../io/checkpoint.ts';
import type { RainCalibrationFiles } from '../pipeline/rain-merge.ts';
import type { RainSettings } from '../protocol/settings-schemas.ts';
import { rainSettingsFromFlags, type EditFlagValues } from './cli-settings.ts';
import { UsageError } from './command.ts';

export const RAIN_FLAGS = {
  base: { type: 'string' },
  'rain-reasoning': { type: 'string' },
  'rain-instructions': { type: 'string' },
} as const;

export const RAIN_FLAGS_HELP = `RAIN (--method rain: Thinking + α·proj(Instruct − Base), rain.py's three checkpoints):
  --base DIR              the Base checkpoint τ = Instruct − Base is formed from (required)
  --rain-reasoning F      reasoning_calibration_set.json: LRM prompts ({prompt, reasoning,
                          response}) whose <think>/</think> features the projection keeps (required)
  --rain-instructions F   instruction_calibration_set.jsonl: prompts with instruction spans
                          ({prompt, reason, response, related_prompt_list, …}) α is fitted on (required)`;

export interface RainInputs {
  readonly base: string;
  readonly calibration: RainCalibrationFiles;
  readonly settings: RainSettings;
}

export function rainInputsFromFlags(values: EditFlagValues): RainInputs | undefined {
  const given = Object.keys(RAIN_FLAGS).filter((flag) => values[flag] !== undefined);
  if (values.method !== 'rain') {
    if (given.length > 0) throw new UsageError(`${given.map((f) => `--${f}`).join(', ')} go with --method rain`);
    return undefined;
  }
  const [base, reasoning, instructions] = [values.base, values['rain-reasoning'], values['rain-instructions']];
  if (typeof base !== 'string') throw new UsageError('RAIN needs a Base checkpoint: pass --base');
  if (typeof reasoning !== 'string' || typeof instructions !== 'string') throw new UsageError('--method rain needs --rain-reasoning F and --rain-instructions F (the reference\'s two calibration files)');
  return { base, calibration: { reasoning, instructions }, settings: rainSettingsFromFlags(values) };
}

export async function withCheckpoints<T>(dirs: readonly string[], body: (checkpoints: Checkpoint[]) => Promise<T>): Promise<T> {
  const opened: Checkpoint[] = [];
  try {
    for (const dir of dirs) opened.push(await Checkpoint.open(dir));
    return await body(opened);
  } finally {
    for (const checkpoint of opened) await checkpoint.close();
  }
}

/** `crane merge --recipe` rebuilds two-checkpoint edits only; a RAIN recipe is refused by name. */
export function refuseRainRecipe(recipe: unknown, file: string): void {
  const method = typeof recipe === 'object' && recipe !== null ? (recipe as { method?: unknown }).method : undefined;
  if (typeof method === 'object' && method !== null && (method as { method?: unknown }).method === 'rain') {
    throw new UsageError(`${file} is a RAIN recipe: --recipe does not rebuild RAIN yet; run crane merge --method rain --base BASE with the settings and files it records`);
  }
}
