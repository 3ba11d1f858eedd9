/**
 * What the UI is told about a project's analysis cache without running anything: per stage,
 * 'missing', 'cached' or 'stale'.
 *
 *   projectStageStates(dir, project) → [{ stage, state }]
 *
 * Cheap by design (no checkpoint hashing, which takes minutes on a large pair): a stage is
 * 'cached' when its done-marker exists and the pipeline record was made from the project's pair
 * and settings, 'stale' when the record differs (other pair, other settings). The final result
 * is checked through the analysis store (artifact hashes). The gates and curvature markers are
 * also compared with the keys analyze gives them (computable from the record alone: stage-keys.ts
 * sumsKey, curvatureKey), as analyze does: an analysis from before those keys held the gradients'
 * batch split (4e366d9) has no gates marker and an older curvature key, and analyze reruns both —
 * they show 'stale', not 'cached'. Changed file CONTENTS under the same paths are only noticed by
 * analyze, which re-hashes every input and redoes what changed.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { loadAnalysis } from '../analysis/analysis-store.ts';
import { canonicalJson } from '../io/tokenizer-files.ts';
import type { AnalysisStageName } from '../pipeline/progress.ts';
import { pipelinePaths, readPipelineRecord, resultKey, resultSettings, type PipelineRecord } from '../pipeline/pipeline-folder.ts';
import { curvatureKey } from '../pipeline/curvature-stage.ts';
import { sumsKey } from '../pipeline/stage-keys.ts';
import { STAGE_MARKER, stageStatus, type StageKey } from '../pipeline/stage-store.ts';
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
  const keyed = async (stageDir: string, key: StageKey): Promise<CacheState> => {
    const { state } = await stageStatus(stageDir, key);
    return state === 'cached' && !matches ? 'stale' : state;
  };
  const loaded = await loadAnalysis(paths.result, resultKey(record.inputs, record.settings)).catch(() => ({ state: 'stale' as const }));
  // The result and its own marker, as run-analysis.ts runGatesStage reads them: a result without the marker is redone.
  const gates = loaded.state !== 'cached' ? loaded.state : await keyed(paths.gates, sumsKey(record.inputs, record.settings)).then((state) => (state === 'missing' ? 'stale' : state));
  const states: Record<AnalysisStageName, CacheState> = {
    targets: await marker(paths.targets),
    projectors: await marker(paths.projectors),
    gradients: await marker(paths.gradients),
    gates,
    curvature: await keyed(paths.curvature, curvatureKey(record)),
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
