/**
 * openReferenceRun: a run of the CRANE reference pipeline becomes the open project's analysis
 * (pipeline/reference-run.ts importIntoPipeline), so the heatmap, masks, tuning, verify and export
 * work on it at once. The source is the run's output folder, or its stats file with the projector
 * file(s) named. One import or analysis at a time per project is the analyze handler's rule too:
 * the loaded analysis is dropped after the write, so every view re-reads the new one.
 */
import { defaultAnalysisSettings } from '../pipeline/analysis-settings.ts';
import { importIntoPipeline, referenceRunFilesIn, type ReferenceRunFiles } from '../pipeline/reference-run.ts';
import { ProtocolError } from '../protocol/errors.ts';
import type { Params, Result } from '../protocol/methods.ts';
import { projectPaths } from '../project/project-layout.ts';
import { projectPipelineSettings } from '../project/pipeline-settings.ts';
import type { EngineSession } from './engine-session.ts';
import { guarded } from './handler-errors.ts';
import { validatePath } from './path-validator.ts';
import { requirePair } from './project-pair.ts';

export function referenceRunHandler(session: EngineSession) {
  return (params: Params<'openReferenceRun'>): Promise<Result<'openReferenceRun'>> =>
    guarded(async () => {
      const dir = await validatePath(params.projectDir, 'directory');
      if (session.project?.dir !== dir) await session.open(dir);
      const { project } = session.requireProject();
      const pair = requirePair(project);
      const files = await runFiles(params);
      // A project that has no calibration sets yet (only a reference run to look at) records the
      // default analysis settings with the stats file standing in for the sets: calibration paths
      // are no part of a result's key, and the next Analyze asks for real ones.
      const analysis = project.analysis ?? defaultAnalysisSettings({ reasoning: files.stats, agent: files.stats, format: files.stats }).analysis;
      const artifacts = await importIntoPipeline(projectPaths(dir).analysis, files, { ...pair, settings: projectPipelineSettings(project, analysis) });
      session.forgetAnalysis();
      const read = [files.stats, files.projectors, ...(files.projectorsLinattn === undefined ? [] : [files.projectorsLinattn])];
      return { projectDir: dir, files: read, gateBlocks: artifacts.gate.scores.size, projectors: artifacts.projectors.size };
    });
}

async function runFiles({ source, projectors, projectorsLinattn }: Params<'openReferenceRun'>): Promise<ReferenceRunFiles> {
  if (projectors === null) {
    if (projectorsLinattn !== null) throw new ProtocolError('invalid-params', 'name the projector file too, or give the run\'s folder alone');
    return referenceRunFilesIn(await validatePath(source, 'directory'));
  }
  return {
    stats: await validatePath(source, 'file'),
    projectors: await validatePath(projectors, 'file'),
    ...(projectorsLinattn === null ? {} : { projectorsLinattn: await validatePath(projectorsLinattn, 'file') }),
  };
}
