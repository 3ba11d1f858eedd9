/**
 * Sequences longer than the model's context, config.json `max_position_embeddings`.
 *
 *   contextLimitOf(config, configFile, policy, warn) → ContextLimit | undefined (no such field; one
 *     that is not a positive integer is a CalibrationError naming config.json)
 *   keptLength(length, limit, where) → how many tokens of the sequence at `where` to keep
 *   replyBudget(promptLength, maxNewTokens, limit) → new tokens worth generating after a prompt
 *
 * Positions past max_position_embeddings are ones the model was never trained at: their losses
 * and gradients describe behaviour the model does not have, and attention cost grows with the
 * square of the length (a 1.5 M-token chat would not finish). What to do is the user's choice:
 *   cut     keep the first max_position_embeddings tokens, and warn (the default)
 *   warn    keep the whole sequence, and warn
 *   refuse  stop with a CalibrationError naming `file:line`
 * Why cut by default: the part of a long chat that fits is exactly what the model can be scored
 * and analysed on, a run always finishes, and the warning names every sequence that was cut;
 * 'warn' would let one oversized line make a run take hours or run out of memory, and 'refuse'
 * would stop a whole run over one long transcript. Warnings name the file and line.
 */
import { CalibrationError } from './calibration-error.ts';

export const LONG_SEQUENCE_POLICIES = ['cut', 'warn', 'refuse'] as const;
export type LongSequencePolicy = (typeof LONG_SEQUENCE_POLICIES)[number];
export const DEFAULT_LONG_SEQUENCE_POLICY: LongSequencePolicy = 'cut';

export interface ContextLimit {
  readonly maxPositions: number;
  readonly policy: LongSequencePolicy;
  /** Where the limit comes from, for messages: "max_position_embeddings 2048 in /m/config.json". */
  readonly source: string;
  readonly warn: (message: string) => void;
}

export function isLongSequencePolicy(value: string): value is LongSequencePolicy {
  return (LONG_SEQUENCE_POLICIES as readonly string[]).includes(value);
}

export function contextLimitOf(
  config: Readonly<Record<string, unknown>>,
  configFile: string,
  policy: LongSequencePolicy,
  warn: (message: string) => void,
): ContextLimit | undefined {
  const value = config['max_position_embeddings'];
  if (value === undefined || value === null) return undefined;
  // A value that is there but unusable ("4096", 0) would silently lift the limit: refuse it.
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new CalibrationError('config', configFile, `"max_position_embeddings" must be a positive integer (got ${JSON.stringify(value)})`);
  }
  return { maxPositions: value, policy, source: `max_position_embeddings ${value} in ${configFile}`, warn };
}

export function keptLength(length: number, limit: ContextLimit | undefined, where: string): number {
  if (limit === undefined || length <= limit.maxPositions) return length;
  const found = `has ${length} tokens, more than the model's context (${limit.source})`;
  if (limit.policy === 'refuse') {
    throw new CalibrationError('too-long', where, `${found}; shorten it, or let long sequences be cut or kept (long-sequences setting)`);
  }
  if (limit.policy === 'cut') {
    limit.warn(`${where}: ${found}: cut to its first ${limit.maxPositions} tokens`);
    return limit.maxPositions;
  }
  limit.warn(`${where}: ${found}: kept whole, positions past the context are untrained`);
  return length;
}

/**
 * Under cut and refuse, generating past the context is wasted work: the tokens would be cut or
 * the sequence refused (the caller checks the finished sequence with keptLength). Under warn the
 * user asked for whole sequences, so the budget stays.
 */
export function replyBudget(promptLength: number, maxNewTokens: number, limit: ContextLimit | undefined): number {
  if (limit === undefined || limit.policy === 'warn') return maxNewTokens;
  return Math.min(maxNewTokens, Math.max(0, limit.maxPositions - promptLength));
}
