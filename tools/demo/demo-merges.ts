/**
 * One merge of the demo pair at a chosen strength, as the CLI builds it: the settings a recipe
 * records (exported through `crane merge`'s path) and the edit Verify measures. Every method's
 * strength is its `--alpha` parameter (λ, SLERP's t, CRANE's α); the other settings are the
 * reference's. AIM-TA/AIM-TIES read the analysis' AIM importance, LEWIS both models' importance
 * measured on the analysis' prompts (cached in the analysis folder). RAIN reads the demo's Base
 * and its two calibration files, and picks its own α (its QP): it has no strength to set.
 */
import { editMethodFromFlags, methodSettingsFromFlags } from '../../engine/cli/cli-settings.ts';
import { readLewisImportance } from '../../engine/crane/lewis-importance-file.ts';
import type { demoPaths } from '../../engine/demo/demo-layout.ts';
import { exportMerge } from '../../engine/export/export-checkpoint.ts';
import { Checkpoint } from '../../engine/io/checkpoint.ts';
import { readAnalysisAimImportance } from '../../engine/pipeline/aim-importance.ts';
import type { EditMethod } from '../../engine/pipeline/edit-method.ts';
import { analysisImportance } from '../../engine/pipeline/importance-source.ts';
import { analysisLewisImportance } from '../../engine/pipeline/lewis-importance-stage.ts';
import { resolveArtifactsDir } from '../../engine/pipeline/pipeline-folder.ts';
import { exportRainMerge } from '../../engine/pipeline/rain-export.ts';
import type { RainVerifyInputs } from '../../engine/pipeline/verify.ts';
import { METHODS } from '../../engine/protocol/method-parameters.ts';
import { DEFAULT_BASELINES } from '../../engine/protocol/settings-defaults.ts';
import type { MergeMethodName, RainSettings, TokenRows } from '../../engine/protocol/settings-schemas.ts';

export type StrengthMethod = Exclude<MergeMethodName, 'rain'>;

export interface DemoMergeContext {
  readonly paths: ReturnType<typeof demoPaths>;
  readonly analysisDir: string;
  readonly tokens: TokenRows;
}

/** The method's strength parameter as the Methods view labels it ("λ (strength)", "t (fraction)", "α (strength)"). */
export function strengthLabel(name: StrengthMethod): string {
  const parameters: readonly { readonly flag: string; readonly key: string }[] = METHODS[name].parameters;
  const parameter = parameters.find((p) => p.flag === 'alpha');
  if (parameter === undefined) throw new RangeError(`${name} has no strength parameter`);
  return parameter.key === 'alpha' ? 'α' : parameter.key === 'lambda' ? 'λ' : parameter.key;
}

/** The edit Verify measures for `name` at `strength`. */
export async function demoEdit(context: DemoMergeContext, name: StrengthMethod, strength: number): Promise<Exclude<EditMethod, { method: 'rain' }>> {
  const values = { method: name, alpha: String(strength) };
  const aim = name === 'aim' || name === 'aim_ties' ? await readAnalysisAimImportance(context.analysisDir) : undefined;
  const lewis = name === 'lewis' ? await lewisImportances(context.analysisDir) : undefined;
  return editMethodFromFlags(values, context.tokens, aim, lewis);
}

/** Writes the merge (F32) through `crane merge`'s export path. */
export async function exportDemoMerge(context: DemoMergeContext, name: StrengthMethod, strength: number, outDir: string): Promise<void> {
  const method = methodSettingsFromFlags({ method: name, alpha: String(strength) }, context.tokens);
  const importance = await analysisImportance(method, context.analysisDir);
  await withPair(context, async (instruct, thinking) => {
    await exportMerge({ instruct, thinking, method, analysisDir: await resolveArtifactsDir(context.analysisDir), dtype: 'F32', outDir, ...(importance === undefined ? {} : { importance }) });
  });
}

export const RAIN_SETTINGS: RainSettings = METHODS.rain.schema.parse(DEFAULT_BASELINES.rain);

/** RAIN's inputs in the demo folder: its Base and calibration files. */
export function demoRainInputs(paths: ReturnType<typeof demoPaths>): RainVerifyInputs {
  return { base: paths.base, calibration: { reasoning: paths.rainReasoning, instructions: paths.rainInstructions } };
}

export async function exportDemoRain(context: DemoMergeContext, outDir: string): Promise<void> {
  const inputs = demoRainInputs(context.paths);
  const base = await Checkpoint.open(inputs.base);
  try {
    await withPair(context, (instruct, thinking) => exportRainMerge({ base, instruct, thinking, calibration: inputs.calibration, settings: RAIN_SETTINGS, dtype: 'F32', outDir }));
  } finally {
    await base.close();
  }
}

async function lewisImportances(analysisDir: string) {
  const paths = await analysisLewisImportance(analysisDir);
  return { base: (await readLewisImportance(paths.lewisBase)).importance, tuned: (await readLewisImportance(paths.lewisTuned)).importance };
}

async function withPair<T>(context: DemoMergeContext, body: (instruct: Checkpoint, thinking: Checkpoint) => Promise<T>): Promise<T> {
  const [instruct, thinking] = [await Checkpoint.open(context.paths.instruct), await Checkpoint.open(context.paths.thinking)];
  try {
    return await body(instruct, thinking);
  } finally {
    await Promise.all([instruct.close(), thinking.close()]);
  }
}
