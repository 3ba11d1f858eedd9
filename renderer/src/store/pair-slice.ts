/** The pair being edited and the project that holds it. */
import type { PairSummary, ProjectState } from '../protocol.ts';
import { idle, type Loadable, type SliceCreator } from './slice.ts';

const RECENT_LIMIT = 8;

export interface PairSlice {
  pair: { instructPath: string; thinkingPath: string; summary: Loadable<PairSummary> };
  project: { dir: string; state: Loadable<ProjectState>; recent: string[] };
  setPairPaths(paths: Partial<{ instructPath: string; thinkingPath: string }>): void;
  setPairSummary(summary: Loadable<PairSummary>): void;
  setProjectDir(dir: string): void;
  setProjectState(state: Loadable<ProjectState>): void;
  rememberProject(dir: string): void;
}

export const createPairSlice: SliceCreator<PairSlice> = (set) => ({
  pair: { instructPath: '', thinkingPath: '', summary: idle() },
  project: { dir: '', state: idle(), recent: [] },
  setPairPaths: (paths) => set((s) => ({ pair: { ...s.pair, ...paths } })),
  setPairSummary: (summary) => set((s) => ({ pair: { ...s.pair, summary } })),
  setProjectDir: (dir) => set((s) => ({ project: { ...s.project, dir } })),
  setProjectState: (state) => set((s) => ({ project: { ...s.project, state } })),
  rememberProject: (dir) =>
    set((s) => ({ project: { ...s.project, recent: [dir, ...s.project.recent.filter((d) => d !== dir)].slice(0, RECENT_LIMIT) } })),
});
