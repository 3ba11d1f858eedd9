/**
 * Where `crane merge` finds the importance files AIM and LEWIS read, from its flags.
 *
 *   mergeImportanceFromFlags(method, values, io, signal) → ImportanceSource | undefined
 *
 * AIM-TA / AIM-TIES: the analysis' own file (--analysis DIR, the projectors stage's
 * aim-importance.safetensors). LEWIS: --importance-base F --importance-tuned F when given, else
 * the analysis' files (--analysis DIR), measured on first use and cached there
 * (pipeline/lewis-importance-stage.ts). Any other method takes none, and naming files with it is a
 * usage error (as lewis-flags.ts's rule for verify).
 */
import type { ImportanceSource } from '../export/recipe-importance.ts';
import { analysisImportance } from '../pipeline/importance-source.ts';
import { initBackend } from '../tensor/backend.ts';
import { UsageError, type CliIo } from './command.ts';
import { lewisMeasuringJob } from './lewis-flags.ts';

export interface ImportanceFlagValues {
  readonly analysis?: string;
  readonly 'importance-base'?: string;
  readonly 'importance-tuned'?: string;
}

export async function mergeImportanceFromFlags(method: string, values: ImportanceFlagValues, io: CliIo, signal: AbortSignal): Promise<ImportanceSource | undefined> {
  const base = values['importance-base'];
  const tuned = values['importance-tuned'];
  if (method !== 'lewis' && (base !== undefined || tuned !== undefined)) throw new UsageError('--importance-base/--importance-tuned go with --method lewis');
  if (method !== 'aim' && method !== 'aim_ties' && method !== 'lewis') return undefined;
  if (base !== undefined && tuned !== undefined) return { paths: { lewisBase: base, lewisTuned: tuned }, what: 'the command line' };
  if (method === 'lewis' && (base !== undefined || tuned !== undefined || values.analysis === undefined)) {
    throw new UsageError('--method lewis needs --importance-base F (Instruct) and --importance-tuned F (Thinking), or --analysis DIR to measure them there');
  }
  if (values.analysis === undefined) throw new UsageError(`--method ${method} needs --analysis DIR (its AIM importance file)`);
  // LEWIS's first merge on this analysis measures both models on the runtime.
  await initBackend();
  return analysisImportance({ method }, values.analysis, lewisMeasuringJob(values.analysis, io, signal));
}
