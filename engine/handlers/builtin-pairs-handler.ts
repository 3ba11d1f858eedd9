/**
 * listBuiltinPairs: the built-in pairs that are built, each as a project prepared in the host's
 * data folder, for the project list to open. A host without a data folder offers none.
 */
import { BUILTIN_PAIRS, builtinProjects, type BuiltinPair } from '../project/builtin-pairs.ts';
import type { Result } from '../protocol/methods.ts';
import { guarded } from './handler-errors.ts';

export function builtinPairsHandler(dataDir: string | null, pairs: readonly BuiltinPair[] = BUILTIN_PAIRS) {
  return (): Promise<Result<'listBuiltinPairs'>> => guarded(async () => (dataDir === null ? [] : builtinProjects(dataDir, pairs)));
}
