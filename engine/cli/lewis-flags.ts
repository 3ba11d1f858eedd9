/**
 * The flags naming LEWIS's two importance files, for `crane verify` and `crane merge`.
 *
 *   LEWIS_FILE_FLAGS, LEWIS_FILES_HELP
 *   lewisImportancesFromFlags(values) → LewisImportanceFiles | undefined   (read and hashed)
 *
 * Files are read only when --method lewis asks for them; naming them with another method is a
 * usage error, so a typo in --method cannot silently drop the schedule.
 */
import { readLewisImportance, type LewisImportanceFile } from '../crane/lewis-importance-file.ts';
import { UsageError } from './command.ts';

export const LEWIS_FILE_FLAGS = {
  'importance-base': { type: 'string' },
  'importance-tuned': { type: 'string' },
} as const;

export const LEWIS_FILES_HELP = `  --importance-base F   LEWIS: per-Linear importance of the base model (Instruct): the .pt of
                        the reference's lewis_importance.py, or a JSON object module → number
  --importance-tuned F  LEWIS: the same for the fine-tuned model (Thinking)`;

export interface LewisImportanceFiles {
  readonly base: LewisImportanceFile;
  readonly tuned: LewisImportanceFile;
}

export async function lewisImportancesFromFlags(values: { readonly [flag: string]: unknown }): Promise<LewisImportanceFiles | undefined> {
  const base = values['importance-base'];
  const tuned = values['importance-tuned'];
  if (values.method !== 'lewis') {
    if (base !== undefined || tuned !== undefined) throw new UsageError('--importance-base/--importance-tuned go with --method lewis');
    return undefined;
  }
  if (typeof base !== 'string' || typeof tuned !== 'string') throw new UsageError('--method lewis needs --importance-base F (Instruct) and --importance-tuned F (Thinking)');
  return { base: await readLewisImportance(base), tuned: await readLewisImportance(tuned) };
}
