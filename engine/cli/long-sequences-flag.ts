/**
 * `--long-sequences cut|warn|refuse`, shared by `crane score` and `crane analyze`: what to do with
 * a calibration chat longer than the model's context (calibration/context-length.ts says why
 * cut is the default).
 */
import { DEFAULT_LONG_SEQUENCE_POLICY, isLongSequencePolicy, LONG_SEQUENCE_POLICIES, type LongSequencePolicy } from '../calibration/context-length.ts';
import { UsageError } from './command.ts';
import { flagHelpLine } from './format.ts';

export const LONG_SEQUENCES_FLAG = { 'long-sequences': { type: 'string' } } as const;

/** The flag's help lines, descriptions starting at `column` like the command's other flags. */
export function longSequencesHelp(column: number): string {
  const indent = ' '.repeat(column);
  return [
    flagHelpLine('  --long-sequences P', column, "cut (default) | warn | refuse a chat longer than the model's context"),
    `${indent}(max_position_embeddings in config.json): cut it to the context, keep it`,
    `${indent}whole, or stop; a warning on stderr names each chat cut or kept (file:line)`,
  ].join('\n');
}

export function longSequencePolicyFromFlag(value: string | undefined): LongSequencePolicy {
  if (value === undefined) return DEFAULT_LONG_SEQUENCE_POLICY;
  if (!isLongSequencePolicy(value)) throw new UsageError(`--long-sequences must be one of ${LONG_SEQUENCE_POLICIES.join(', ')}, got "${value}"`);
  return value;
}
