/**
 * openProject, saveProject, getProjectState: the project folder as the UI sees it.
 *
 * Opening a folder without project.json starts a new project there (the browser has no folder
 * picker to "create" one). Saving keeps what the protocol does not carry (the export history,
 * the format version) from the project already in that folder. The stage states are the cheap
 * cache check of project/stage-states.ts.
 */
import type { Params, Result } from '../protocol/methods.ts';
import { protocolProject } from '../project/project-file.ts';
import { projectStageStates } from '../project/stage-states.ts';
import { validatePath } from './path-validator.ts';
import type { EngineSession, OpenProject } from './engine-session.ts';
import { guarded } from './handler-errors.ts';
import { validateOutputDir } from './output-path.ts';

export async function projectState({ dir, project }: OpenProject): Promise<Result<'openProject'>> {
  return { projectDir: dir, project: protocolProject(project), stages: await projectStageStates(dir, project) };
}

export function projectHandlers(session: EngineSession) {
  return {
    getProjectState: async (): Promise<Result<'getProjectState'>> => {
      const open = session.project;
      return open === null ? null : guarded(() => projectState(open));
    },
    openProject: ({ projectDir }: Params<'openProject'>): Promise<Result<'openProject'>> =>
      guarded(async () => projectState(await session.open(await validatePath(projectDir, 'directory')))),
    saveProject: ({ projectDir, project }: Params<'saveProject'>): Promise<Result<'saveProject'>> =>
      guarded(async () => projectState(await session.save(() => validateOutputDir(projectDir), (before) => ({ ...before, ...project })))),
  };
}
