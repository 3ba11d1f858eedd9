/**
 * The flags naming LEWIS's two importance files, for `crane verify` and `crane merge`.
 *
 *   LEWIS_FILE_FLAGS, LEWIS_FILES_HELP
 *   lewisImportancesFromFlags(values, analysis?) → LewisImportanceFiles | undefined   (read and hashed)
 *   lewisMeasuringJob(analysisDir, io, signal?) → the stage options that say once on stderr that
 *                                                 the analysis' pair is being measured
 *
 * Files are read only when --method lewis asks for them; naming them with another method is a
 * usage error, so a typo in --method cannot silently drop the schedule. Without either flag, an
 * analysis folder supplies its own pair (pipeline/lewis-importance-stage.ts: measured on first
 * use, cached there), as `crane merge --analysis` and the UI take it.
 */
import { readLewisImportance, type LewisImportanceFile } from '../crane/lewis-importance-file.ts';
import { analysisLewisImportance, type LewisStageOptions } from '../pipeline/lewis-importance-stage.ts';
import { initBackend } from '../tensor/backend.ts';
import { UsageError, type CliIo } from './command.ts';

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

/** The analysis whose own pair LEWIS reads when neither flag names a file. */
export interface LewisAnalysisFallback {
  readonly dir: string;
  readonly io: CliIo;
}

export async function lewisImportancesFromFlags(values: { readonly [flag: string]: unknown }, analysis?: LewisAnalysisFallback): Promise<LewisImportanceFiles | undefined> {
  const base = values['importance-base'];
  const tuned = values['importance-tuned'];
  if (values.method !== 'lewis') {
    if (base !== undefined || tuned !== undefined) throw new UsageError('--importance-base/--importance-tuned go with --method lewis');
    return undefined;
  }
  if (typeof base === 'string' && typeof tuned === 'string') return { base: await readLewisImportance(base), tuned: await readLewisImportance(tuned) };
  if (base !== undefined || tuned !== undefined || analysis === undefined) {
    throw new UsageError(`--method lewis needs --importance-base F (Instruct) and --importance-tuned F (Thinking)${analysis === undefined ? '' : ', or neither to use the analysis\' own'}`);
  }
  // The first LEWIS use of this analysis measures both models on the runtime.
  await initBackend();
  const paths = await analysisLewisImportance(analysis.dir, lewisMeasuringJob(analysis.dir, analysis.io));
  return { base: await readLewisImportance(paths.lewisBase), tuned: await readLewisImportance(paths.lewisTuned) };
}

export function lewisMeasuringJob(analysisDir: string, io: CliIo, signal?: AbortSignal): LewisStageOptions {
  let told = false;
  return {
    ...(signal === undefined ? {} : { signal }),
    onProgress: () => {
      if (!told) io.err(`measuring LEWIS importance of Instruct and Thinking on the analysis' prompts (kept in ${analysisDir} for the next use)`);
      told = true;
    },
  };
}
