/**
 * What RAIN runs on in the UI: the project's Base and the two calibration files set as RAIN's
 * parameters (reasoningFile, instructionsFile), beside the settings it runs with.
 *
 *   rainInputsOf(project, method) → { base, calibration, settings }   or a ProtocolError naming what is missing
 *
 * `settings` leave the two paths out, so the recipe an export writes records the files' SHA-256
 * (inputs.rainCalibration) and never a path of this machine. The paths come from a browser, so
 * they are checked as every path the UI names (absolute, normalised, an existing file).
 */
import type { RainCalibrationFiles } from '../pipeline/rain-merge.ts';
import { ProtocolError } from '../protocol/errors.ts';
import type { RainSettings } from '../protocol/settings-schemas.ts';
import type { StoredProject } from '../project/project-file.ts';
import { validatePath } from './path-validator.ts';

export interface RainProjectInputs {
  readonly base: string;
  readonly calibration: RainCalibrationFiles;
  readonly settings: RainSettings;
}

export async function rainInputsOf(project: StoredProject, method: RainSettings): Promise<RainProjectInputs> {
  const { reasoningFile, instructionsFile, ...settings } = method;
  const base = project.base ?? undefined;
  const missing = [
    ...(base === undefined ? ["a Base checkpoint (the project's Base, given when the pair is opened)"] : []),
    ...(reasoningFile === undefined ? ["its reasoning file (RAIN's 'reasoning file' parameter)"] : []),
    ...(instructionsFile === undefined ? ["its instructions file (RAIN's 'instructions file' parameter)"] : []),
  ];
  if (base === undefined || reasoningFile === undefined || instructionsFile === undefined) {
    throw new ProtocolError('invalid-params', `RAIN needs ${missing.join(' and ')}`);
  }
  return {
    base,
    calibration: { reasoning: await validatePath(reasoningFile, 'file'), instructions: await validatePath(instructionsFile, 'file') },
    settings,
  };
}
