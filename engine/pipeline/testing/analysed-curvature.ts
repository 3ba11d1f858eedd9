/**
 * A tiny project analysed once, with what the curvature tests measure the stage against: its
 * loaded preview curvature, both checkpoints open (the caller closes them), and the gradients'
 * train sequences as loss batches, the ones the stage itself scored.
 */
import type { PreviewCurvature } from '../../analysis/preview-curvature.ts';
import { Checkpoint } from '../../io/checkpoint.ts';
import type { LossSequence } from '../../model/layer-grads.ts';
import { lossBatch, readSequences } from '../calibration-sequences.ts';
import { loadCurvature } from '../curvature-stage.ts';
import { pipelinePaths, readPipelineRecord } from '../pipeline-folder.ts';
import { analysedProject, type AnalysedProject } from './analysed-project.ts';

export interface AnalysedCurvature {
  readonly project: AnalysedProject;
  readonly curvature: PreviewCurvature;
  readonly instruct: Checkpoint;
  readonly thinking: Checkpoint;
  readonly batches: Record<'reasoning' | 'agent', LossSequence[]>;
}

export async function analysedCurvature(root: string, options: Parameters<typeof analysedProject>[1]): Promise<AnalysedCurvature> {
  const project = await analysedProject(root, options);
  const curvature = await loadCurvature(project.outDir, await readPipelineRecord(project.outDir)) as PreviewCurvature;
  const instruct = await Checkpoint.open(project.instruct);
  const thinking = await Checkpoint.open(project.thinking);
  const sequences = await readSequences(pipelinePaths(project.outDir).sequences);
  const batches = { reasoning: lossBatch(sequences, 'reasoning', 'train'), agent: lossBatch(sequences, 'agent', 'train') };
  return { project, curvature, instruct, thinking, batches };
}
