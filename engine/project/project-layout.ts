/**
 * A project folder:
 *
 *   DIR/project.json   the project file (project-file.ts)
 *   DIR/analysis/      the analysis cache: a pipeline folder (engine/pipeline/pipeline-folder.ts)
 *                      whose stages resume after a cancel or an engine restart
 *
 * The cache lives inside the project so that moving or archiving the folder keeps both.
 */
import { join } from 'node:path';

export const PROJECT_FILE = 'project.json';

export function projectPaths(dir: string) {
  return { dir, file: join(dir, PROJECT_FILE), analysis: join(dir, 'analysis') };
}
