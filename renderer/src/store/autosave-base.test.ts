/** The autosave writes the project's Base back as the engine has it, so saving never drops it. */
import { describe, expect, it } from 'vitest';
import { createAppStore } from './app-store.ts';
import { projectContent, projectContentKey } from './autosave.ts';
import { ready } from './slice.ts';

function withProject(base: string | null | undefined) {
  const store = createAppStore();
  const s = store.getState();
  const { analysis, settings, verified } = projectContent(s);
  // The engine's field order (engine/project/project-file.ts protocolProject).
  const project = { instruct: '/i', thinking: '/t', ...(base === undefined ? {} : { base }), analysis, settings, verified };
  s.setProjectState(ready({ projectDir: '/p', project, stages: [] }));
  return { state: store.getState(), project };
}

describe('autosave and the Base checkpoint', () => {
  it('keeps the open project\'s Base (a path, null or absent) exactly, so the saved key matches the file', () => {
    for (const base of ['/b', null, undefined]) {
      const { state, project } = withProject(base);
      const content = projectContent(state);
      expect(content.base).toBe(base);
      expect(Object.hasOwn(content, 'base')).toBe(base !== undefined);
      expect(projectContentKey(content)).toBe(projectContentKey(project));
    }
  });

  it('with no project open, saves the Base path typed in the pair opener', () => {
    const store = createAppStore();
    store.getState().setPairPaths({ instructPath: '/i', thinkingPath: '/t', basePath: ' /b ' });
    expect(projectContent(store.getState()).base).toBe('/b');
    store.getState().setPairPaths({ basePath: '' });
    expect(Object.hasOwn(projectContent(store.getState()), 'base')).toBe(false);
  });
});
