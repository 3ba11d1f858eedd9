/**
 * Where Verify measures, as flags: `--eval-reasoning R --eval-tool-use A` (evaluation chats, one
 * file per set like --reasoning/--tool-use), `--held-out F` (analyze only: a share of the
 * calibration sets kept out of the gradients) and `--on-calibration` (verify only: the calibration
 * sets themselves). Without any, analyze keeps every example in the gradients and Verify measures
 * on the calibration sets; verify measures where its analysis says.
 */
import type { EvaluationSet } from '../protocol/settings-schemas.ts';
import { UsageError } from './command.ts';
import { flagHelpLine } from './format.ts';

export const EVAL_FILE_FLAGS = { 'eval-reasoning': { type: 'string' }, 'eval-tool-use': { type: 'string' } } as const;

/** The two flags' help lines, descriptions starting at `column` like the command's other flags. */
export function evalFilesHelp(column: number): string {
  return [
    flagHelpLine('  --eval-reasoning R.jsonl', column, "evaluation chats for L_R (D_R's format) that verify measures on"),
    flagHelpLine('  --eval-tool-use A.jsonl', column, "evaluation chats for L_A (D_A's format); both or neither"),
  ].join('\n');
}

interface EvaluationFlags {
  readonly 'eval-reasoning'?: string | undefined;
  readonly 'eval-tool-use'?: string | undefined;
}

/** The evaluation files named by the flags, or undefined when neither is given. */
function evaluationFilesFromFlags(flags: EvaluationFlags): EvaluationSet | undefined {
  const { 'eval-reasoning': reasoning, 'eval-tool-use': agent } = flags;
  if (reasoning === undefined && agent === undefined) return undefined;
  if (reasoning === undefined || agent === undefined) throw new UsageError('--eval-reasoning and --eval-tool-use go together: name both evaluation files');
  return { source: 'files', reasoning, agent };
}

/** analyze: the files, or `--held-out F` (0 = none), or the calibration sets; files and a share exclude each other. */
export function analysisEvaluationFromFlags(flags: EvaluationFlags & { readonly 'held-out'?: string | undefined }): EvaluationSet {
  const files = evaluationFilesFromFlags(flags);
  const text = flags['held-out'];
  if (text === undefined) return files ?? { source: 'calibration' };
  const share = Number(text);
  if (text.trim() === '' || !Number.isFinite(share) || share < 0 || share > 0.9) throw new UsageError(`--held-out must be a share from 0 to 0.9, got "${text}"`);
  if (files !== undefined && share > 0) throw new UsageError('--held-out and --eval-reasoning/--eval-tool-use exclude each other: measure on evaluation files or on a held-out share');
  return files ?? (share > 0 ? { source: 'held-out', fraction: share } : { source: 'calibration' });
}

/** verify: the files, or `--on-calibration`, or undefined (the analysis' own evaluation set). */
export function verifyEvaluationFromFlags(flags: EvaluationFlags & { readonly 'on-calibration'?: boolean | undefined }): EvaluationSet | undefined {
  const files = evaluationFilesFromFlags(flags);
  if (flags['on-calibration'] !== true) return files;
  if (files !== undefined) throw new UsageError('--on-calibration and --eval-reasoning/--eval-tool-use exclude each other');
  return { source: 'calibration' };
}
