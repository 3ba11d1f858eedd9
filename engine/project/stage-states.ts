/**
 * What the UI is told about a project's analysis cache without running anything: per stage,
 * 'missing', 'cached' or 'stale'.
 *
 *   projectStageStates(dir, project) → [{ stage, state }]
 *
 * Cheap by design (no checkpoint hashing, which takes minutes on a large pair): a stage is
 * 'cached' when its done-marker exists and the pipeline record was made from the project's pair
 * and settings, 'stale' when the record differs (other pair, other settings). The final result
 * is checked through the analysis store (artifact hashes). Changed file CONTENTS under the same
 * paths are only noticed by analyze, which re-hashes every input and redoes what changed.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { loadAnalysis } from '../analysis/analysis-store.ts';
import { canonicalJson } from '../io/tokenizer-files.ts';
import type { AnalysisStageName } from '../pipeline/progress.ts';
import { pipelinePaths, readPipelineRecord, resultKey, resultSettings, type PipelineRecord } from '../pipeline/pipeline-folder.ts';
import { STAGE_MARKER } from '../pipeline/stage-store.ts';
import { ANALYSIS_STAGES } from '../protocol/common-schemas.ts';
import type { StoredProject } from './project-file.ts';
import { projectPaths } from './project-layout.ts';
import { projectPipelineSettings } from './pipeline-settings.ts';

export type CacheState = 'missing' | 'cached' | 'stale';
export interface StageState {
  readonly stage: AnalysisStageName;
  readonly state: CacheState;
}

const ALL_MISSING: readonly StageState[] = ANALYSIS_STAGES.map((stage) => ({ stage, state: 'missing' }));

export async function projectStageStates(dir: string, project: StoredProject): Promise<StageState[]> {
  const analysisDir = projectPaths(dir).analysis;
  let record: PipelineRecord;
  try {
    record = await readPipelineRecord(analysisDir);
  } catch {
    return [...ALL_MISSING];
  }
  const matches = recordMatches(record, project);
  const paths = pipelinePaths(analysisDir);
  const marker = async (stageDir: string): Promise<CacheState> => {
    const done = await access(join(stageDir, STAGE_MARKER)).then(() => true, () => false);
    return !done ? 'missing' : matches ? 'cached' : 'stale';
  };
  const loaded = await loadAnalysis(paths.result, resultKey(record.inputs, record.settings)).catch(() => ({ state: 'stale' as const }));
  const states: Record<AnalysisStageName, CacheState> = {
    targets: await marker(paths.targets),
    projectors: await marker(paths.projectors),
    gradients: await marker(paths.gradients),
    gates: loaded.state === 'cached' && !matches ? 'stale' : loaded.state,
    curvature: await marker(paths.curvature),
  };
  return ANALYSIS_STAGES.map((stage) => ({ stage, state: states[stage] }));
}

/** Whether the cache was computed for this project's pair, calibration paths and result-shaping settings. */
export function recordMatches(record: PipelineRecord, project: StoredProject): boolean {
  if (record.instruct !== project.instruct || record.thinking !== project.thinking) return false;
  if (project.analysis === null) return true;
  const wanted = projectPipelineSettings(project, project.analysis);
  return canonicalJson(resultSettings(wanted)) === canonicalJson(resultSettings(record.settings))
    && canonicalJson(wanted.analysis.calibration) === canonicalJson(record.settings.analysis.calibration);
}
