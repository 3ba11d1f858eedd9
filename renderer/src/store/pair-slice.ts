/** The pair being edited and the project that holds it, with whether its file holds what is on screen. */
import type { BuiltinProject, ErrorInfo, PairSummary, ProjectState } from '../protocol.ts';
import { idle, type Loadable, type SliceCreator } from './slice.ts';

const RECENT_LIMIT = 8;

/** 'unsaved': the screen differs from project.json and an autosave is due. */
export type SaveStatus = 'saved' | 'unsaved' | 'saving' | 'error';

export interface ProjectSave {
  readonly status: SaveStatus;
  /** Key (autosave.ts projectContentKey) of what project.json holds; null while no project is open. */
  readonly savedKey: string | null;
  /** When project.json was last written from this page (ms since epoch). */
  readonly at: number | null;
  readonly error: ErrorInfo | null;
}

export interface PairSlice {
  /** basePath: the optional Base checkpoint ('' = none), which RAIN needs. */
  pair: { instructPath: string; thinkingPath: string; basePath: string; summary: Loadable<PairSummary> };
  /** builtins: the engine's built-in pairs (listBuiltinPairs), offered beside the recent projects. */
  project: { dir: string; state: Loadable<ProjectState>; recent: string[]; builtins: BuiltinProject[]; save: ProjectSave };
  setPairPaths(paths: Partial<{ instructPath: string; thinkingPath: string; basePath: string }>): void;
  setPairSummary(summary: Loadable<PairSummary>): void;
  setProjectDir(dir: string): void;
  setProjectState(state: Loadable<ProjectState>): void;
  setProjectSave(save: Partial<ProjectSave>): void;
  rememberProject(dir: string): void;
  setBuiltinProjects(builtins: BuiltinProject[]): void;
}

export const createPairSlice: SliceCreator<PairSlice> = (set) => ({
  pair: { instructPath: '', thinkingPath: '', basePath: '', summary: idle() },
  project: { dir: '', state: idle(), recent: [], builtins: [], save: { status: 'saved', savedKey: null, at: null, error: null } },
  // A failed open is about the paths it was given: editing them clears its error.
  setPairPaths: (paths) =>
    set((s) => ({ pair: { ...s.pair, ...paths, summary: s.pair.summary.status === 'error' ? idle() : s.pair.summary } })),
  setPairSummary: (summary) => set((s) => ({ pair: { ...s.pair, summary } })),
  setProjectDir: (dir) =>
    set((s) => ({ project: { ...s.project, dir, state: s.project.state.status === 'error' ? { ...s.project.state, status: 'idle', error: null } : s.project.state } })),
  setProjectState: (state) => set((s) => ({ project: { ...s.project, state } })),
  setProjectSave: (save) => set((s) => ({ project: { ...s.project, save: { ...s.project.save, ...save } } })),
  rememberProject: (dir) =>
    set((s) => ({ project: { ...s.project, recent: [dir, ...s.project.recent.filter((d) => d !== dir)].slice(0, RECENT_LIMIT) } })),
  setBuiltinProjects: (builtins) => set((s) => ({ project: { ...s.project, builtins } })),
});
