/**
 * analyze: the project's analysis through engine/pipeline's runAnalysis, into the project's
 * cache folder (DIR/analysis), so a cancelled run — or an engine that was killed — resumes where
 * it stopped, and finished stages are reported `cached`.
 *
 * The settings sent are saved into the project first (they are what the cache is keyed by).
 * Progress, stageDone and log events carry the request id; ctx.signal cancels (the pipeline
 * checks it between sequences, batches and layers).
 * One analysis at a time per engine: two runs writing one cache would corrupt it.
 */
import { runAnalysis } from '../pipeline/run-analysis.ts';
import { ProtocolError } from '../protocol/errors.ts';
import type { HandlerContext } from '../protocol/handlers.ts';
import type { Params, Result } from '../protocol/methods.ts';
import { projectPaths } from '../project/project-layout.ts';
import { projectPipelineSettings } from '../project/pipeline-settings.ts';
import { validatePath } from './path-validator.ts';
import { ensureBackend } from './compute-backend.ts';
import type { EngineSession } from './engine-session.ts';
import { guarded } from './handler-errors.ts';
import { log, pipelineCallbacks } from './job-progress.ts';
import { requirePair } from './project-pair.ts';

export function analyzeHandler(session: EngineSession) {
  let running: number | null = null;
  return (params: Params<'analyze'>, ctx: HandlerContext): Promise<Result<'analyze'>> =>
    guarded(async () => {
      if (running !== null) throw new ProtocolError('bad-request', `an analysis is already running (request ${running}); cancel it first`);
      running = ctx.requestId;
      try {
        const dir = await validatePath(params.projectDir, 'directory');
        if (session.project?.dir !== dir) await session.open(dir);
        const { project } = await session.update((p) => ({ ...p, analysis: params.settings }));
        const pair = requirePair(project);
        await ensureBackend();
        const callbacks = pipelineCallbacks(ctx, 'targets');
        log(ctx, `analysing ${pair.instruct} + ${pair.thinking} into ${projectPaths(dir).analysis}`);
        const run = await runAnalysis({
          ...pair,
          ...callbacks,
          outDir: projectPaths(dir).analysis,
          settings: projectPipelineSettings(project, params.settings),
        });
        session.forgetAnalysis();
        return { projectDir: dir, stages: run.stages.map(({ stage, cached, seconds }) => ({ stage, cached, seconds })) };
      } finally {
        running = null;
      }
    }, ctx.signal);
}
