/**
 * export: the edited checkpoint of the open pair through exportMerge (streamed, atomic, sharded,
 * with crane_recipe.json and a model card), with `export` progress — hashing the inputs is the
 * first 30 %, writing the rest, by bytes — and cancel through ctx.signal (the writer leaves
 * nothing at outDir). CRANE reads the project's analysis when its gate or GSP is on; AIM and
 * LEWIS read its importance files (method-context.ts; LEWIS's are measured on first use, reported
 * as the export's progress before hashing starts over from 0), which the export embeds. RAIN
 * writes onto Thinking from the project's Base and its calibration files (rain-inputs.ts,
 * pipeline/rain-export.ts). The export is recorded in the project's history.
 */
import { readdir } from 'node:fs/promises';
import { exportMerge, type ExportProgress, type ExportResult } from '../export/export-checkpoint.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { exportRainMerge } from '../pipeline/rain-export.ts';
import type { HandlerContext } from '../protocol/handlers.ts';
import type { Params, Result } from '../protocol/methods.ts';
import type { EngineSession } from './engine-session.ts';
import { guarded } from './handler-errors.ts';
import { JobProgress, log } from './job-progress.ts';
import { withCheckpointDirs } from './checkpoint-dirs.ts';
import { methodInputs } from './method-context.ts';
import { validateOutputDir } from './output-path.ts';
import { requirePair, withProjectPair } from './project-pair.ts';
import { rainInputsOf } from './rain-inputs.ts';

const HASH_SHARE = 0.3;

export function exportHandler(session: EngineSession) {
  return (params: Params<'export'>, ctx: HandlerContext): Promise<Result<'export'>> =>
    guarded(async () => {
      const { project } = session.requireProject();
      const pair = requirePair(project);
      const outDir = await validateOutputDir(params.outDir);
      const progress = new JobProgress(ctx, 'export');
      progress.report(0);
      const onProgress = (p: ExportProgress) => {
        const f = p.bytesTotal > 0 ? p.bytesDone / p.bytesTotal : 1;
        progress.report(p.phase === 'hash' ? HASH_SHARE * f : HASH_SHARE + (1 - HASH_SHARE) * f);
      };
      const run = { outDir, dtype: params.dtype, maxShardBytes: params.shardBytes, signal: ctx.signal, onProgress, overwrite: params.overwrite };
      let result: ExportResult;
      if (params.method.method === 'rain') {
        // RAIN writes onto Thinking from three checkpoints (pipeline/rain-export.ts), not through exportMerge.
        const { base, calibration, settings } = await rainInputsOf(project, params.method);
        result = await withCheckpointDirs([pair.instruct, pair.thinking, base], ([instruct, thinking, baseCheckpoint]) =>
          exportRainMerge({ ...run, instruct, thinking, base: baseCheckpoint as Checkpoint, calibration, settings }));
      } else {
        const { method, analysis, importance } = await methodInputs(session, params.method, { signal: ctx.signal, onProgress: (f) => progress.report(f) });
        result = await withProjectPair(project, ({ instruct, thinking }) => exportMerge({
          ...run, instruct, thinking, method,
          ...(analysis === null ? {} : { analysisDir: analysis.resultDir }),
          ...(importance === undefined ? {} : { importance }),
        }));
      }
      progress.report(1);
      const files = (await readdir(result.dir)).sort();
      for (const note of result.notes) log(ctx, `export: ${note}`, 'warn');
      await session.update((p) => ({
        ...p,
        exports: [...p.exports, { outDir: result.dir, method: params.method, dtype: params.dtype, totalBytes: result.totalBytes, files, finishedAt: new Date().toISOString() }],
      }));
      return { outDir: result.dir, files, totalBytes: result.totalBytes, recipe: JSON.parse(JSON.stringify(result.recipe)) as Result<'export'>['recipe'], seconds: progress.seconds() };
    }, ctx.signal);
}
