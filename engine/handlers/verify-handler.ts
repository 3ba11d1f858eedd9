/**
 * verify: build the edited weights of the open project (any method) and measure both
 * calibration losses next to θ_I's on the project's evaluation set (its analysis settings: eval
 * files, a held-out share, or the calibration sets), through engine/pipeline's verifyEdit, with
 * `verify` progress and cancel; RAIN with the project's Base and its calibration files
 * (rain-inputs.ts). The result says which set it was measured on, what the preview predicted
 * (CRANE) and when it ended: one run of the project's history. A CRANE result is
 * also kept in the project's verified points (the measured dots the preview chart draws beside
 * its prediction).
 */
import { verifyEdit } from '../pipeline/verify.ts';
import type { HandlerContext } from '../protocol/handlers.ts';
import type { Params, Result } from '../protocol/methods.ts';
import { ensureBackend } from './compute-backend.ts';
import type { EngineSession } from './engine-session.ts';
import { guarded } from './handler-errors.ts';
import { log, pipelineCallbacks } from './job-progress.ts';
import { methodContext } from './method-context.ts';
import { rainInputsOf } from './rain-inputs.ts';

export function verifyHandler(session: EngineSession) {
  return (params: Params<'verify'>, ctx: HandlerContext): Promise<Result<'verify'>> =>
    guarded(async () => {
      const { project } = session.requireProject();
      const analysis = await session.analysis();
      await ensureBackend();
      const callbacks = pipelineCallbacks(ctx, 'verify');
      callbacks.progress.report(0);
      // RAIN runs on the project's Base and its two calibration files, not on the pair alone.
      const rain = params.method.method === 'rain' ? await rainInputsOf(project, params.method) : undefined;
      // LEWIS's first Verify on this analysis measures both models' importance (reported as progress, then cached).
      const edit = rain?.settings ?? (await methodContext(session, params.method, { signal: ctx.signal, onProgress: (f) => callbacks.progress.report(f) })).edit;
      const measured = await verifyEdit({
        ...callbacks, analysisDir: analysis.analysisDir, method: edit,
        ...(rain === undefined ? {} : { rain: { base: rain.base, calibration: rain.calibration } }),
        ...(project.analysis === null ? {} : { evaluation: project.analysis.evaluation }),
      });
      callbacks.progress.report(1);
      for (const note of measured.notes) log(ctx, `verify: ${note}`, 'warn');
      const result: Result<'verify'> = {
        method: params.method,
        measuredOn: measured.measuredOn,
        edited: { ...measured.edited },
        base: { ...measured.base },
        tokens: { ...measured.tokens },
        seconds: measured.seconds,
        predicted: measured.predicted === null ? null : { ...measured.predicted },
        finishedAt: new Date().toISOString(),
      };
      if (params.method.method === 'crane') await session.update((p) => ({ ...p, verified: [...p.verified, result] }));
      return result;
    }, ctx.signal);
}
