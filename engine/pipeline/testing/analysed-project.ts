/** A tiny project written under a temp root and analysed once, shared by a test file's cases. */
import { join } from 'node:path';
import { runAnalysis, type AnalysisRun } from '../run-analysis.ts';
import { writeTinyProject, type TinyProject } from './tiny-project.ts';

export interface AnalysedProject extends TinyProject {
  readonly root: string;
  readonly outDir: string;
  readonly run: AnalysisRun;
}

export async function analysedProject(root: string, options?: Parameters<typeof writeTinyProject>[1]): Promise<AnalysedProject> {
  const project = await writeTinyProject(root, options);
  const outDir = join(root, 'analysis');
  const run = await runAnalysis({ ...project, outDir });
  return { ...project, root, outDir, run };
}
