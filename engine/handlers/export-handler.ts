/**
 * export: the edited checkpoint of the open pair through exportMerge (streamed, atomic, sharded,
 * with crane_recipe.json and a model card), with `export` progress — hashing the inputs is the
 * first 30 %, writing the rest, by bytes — and cancel through ctx.signal (the writer leaves
 * nothing at outDir). CRANE reads the project's analysis when its gate or GSP is on. The export
 * is recorded in the project's history.
 */
import { readdir } from 'node:fs/promises';
import { exportMerge, type ExportProgress } from '../export/export-checkpoint.ts';
import type { HandlerContext } from '../protocol/handlers.ts';
import type { Params, Result } from '../protocol/methods.ts';
import { exportMethodOf, resolveCraneSettings } from './edit-settings.ts';
import type { EngineSession } from './engine-session.ts';
import { guarded } from './handler-errors.ts';
import { JobProgress, log } from './job-progress.ts';
import { readsAnalysis } from './method-context.ts';
import { validateOutputDir } from './output-path.ts';
import { requirePair, withProjectPair } from './project-pair.ts';

const HASH_SHARE = 0.3;

export function exportHandler(session: EngineSession) {
  return (params: Params<'export'>, ctx: HandlerContext): Promise<Result<'export'>> =>
    guarded(async () => {
      const { project } = session.requireProject();
      requirePair(project);
      const outDir = await validateOutputDir(params.outDir);
      const analysis = readsAnalysis(params.method) ? await session.analysis() : null;
      const tokens = await session.tokenRows();
      const method = exportMethodOf(params.method, (s) => resolveCraneSettings(s, analysis?.columns ?? null, tokens));
      const progress = new JobProgress(ctx, 'export');
      progress.report(0);
      const onProgress = (p: ExportProgress) => {
        const f = p.bytesTotal > 0 ? p.bytesDone / p.bytesTotal : 1;
        progress.report(p.phase === 'hash' ? HASH_SHARE * f : HASH_SHARE + (1 - HASH_SHARE) * f);
      };
      return withProjectPair(project, async ({ instruct, thinking }) => {
        const result = await exportMerge({
          instruct, thinking, method, outDir, dtype: params.dtype, maxShardBytes: params.shardBytes,
          signal: ctx.signal, onProgress, overwrite: params.overwrite,
          ...(analysis === null ? {} : { analysisDir: analysis.resultDir }),
        });
        progress.report(1);
        const files = (await readdir(result.dir)).sort();
        for (const note of result.notes) log(ctx, `export: ${note}`, 'warn');
        await session.update((p) => ({
          ...p,
          exports: [...p.exports, { outDir: result.dir, method: params.method, dtype: params.dtype, totalBytes: result.totalBytes, files, finishedAt: new Date().toISOString() }],
        }));
        return { outDir: result.dir, files, totalBytes: result.totalBytes, recipe: JSON.parse(JSON.stringify(result.recipe)) as Result<'export'>['recipe'], seconds: progress.seconds() };
      });
    }, ctx.signal);
}

