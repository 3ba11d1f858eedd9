/**
 * The pipeline settings a project's analysis runs with: its analysis settings, the keep-quantile
 * q of its edit settings (the preview coefficients bake T(δ) in at one q, so the analysis follows
 * the q the researcher is working at) and the default batch size (memory only).
 */
import { DEFAULT_BATCH_SEQUENCES, type PipelineSettings } from '../pipeline/analysis-settings.ts';
import type { AnalysisSettings } from '../protocol/settings-schemas.ts';
import type { StoredProject } from './project-file.ts';

export function projectPipelineSettings(project: StoredProject, analysis: AnalysisSettings): PipelineSettings {
  return { analysis, keepQuantile: project.settings.keepQuantile, batchSequences: DEFAULT_BATCH_SEQUENCES };
}
