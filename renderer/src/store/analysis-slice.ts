/** The analysis job: per-stage progress, ETA, cached/stale state, and the engine's log lines. */
import { ANALYSIS_STAGES, DEFAULT_ANALYSIS_KNOBS, type AnalysisSettings, type AnalysisStage, type ErrorInfo, type EventPayload, type ProjectState, type Stage } from '../protocol.ts';
import type { SliceCreator } from './slice.ts';

export type StageState = 'missing' | 'cached' | 'stale' | 'running' | 'done';

export interface StageView {
  readonly state: StageState;
  readonly fraction: number;
  readonly etaSeconds: number | null;
  readonly seconds: number | null;
}

export interface LogLine {
  readonly at: number;
  readonly level: EventPayload<'log'>['level'];
  readonly message: string;
}

export type JobStatus = 'idle' | 'running' | 'done' | 'cancelled' | 'error';

export interface AnalysisSlice {
  analysis: {
    settings: AnalysisSettings;
    status: JobStatus;
    error: ErrorInfo | null;
    stages: Record<AnalysisStage, StageView>;
    logs: LogLine[];
  };
  setAnalysisSettings(settings: AnalysisSettings): void;
  analysisStarted(): void;
  analysisEnded(status: Exclude<JobStatus, 'idle' | 'running'>, error?: ErrorInfo): void;
  applyProgress(payload: EventPayload<'progress'>): void;
  applyStageDone(payload: EventPayload<'stageDone'>): void;
  applyStageStates(stages: ProjectState['stages']): void;
  appendLog(payload: EventPayload<'log'>): void;
}

const LOG_LIMIT = 500;
/** The reference analysis until a project names its calibration sets. */
export const UNSET_ANALYSIS: AnalysisSettings = { calibration: { reasoning: '/', agent: '/', format: '/' }, ...DEFAULT_ANALYSIS_KNOBS };
const missing: StageView = { state: 'missing', fraction: 0, etaSeconds: null, seconds: null };
const allMissing = () => Object.fromEntries(ANALYSIS_STAGES.map((s) => [s, missing])) as Record<AnalysisStage, StageView>;
export const isAnalysisStage = (stage: Stage): stage is AnalysisStage => (ANALYSIS_STAGES as readonly Stage[]).includes(stage);

export const createAnalysisSlice: SliceCreator<AnalysisSlice> = (set, get) => {
  const patchStage = (stage: AnalysisStage, patch: Partial<StageView>) =>
    set((s) => ({ analysis: { ...s.analysis, stages: { ...s.analysis.stages, [stage]: { ...s.analysis.stages[stage], ...patch } } } }));
  return {
    analysis: { settings: UNSET_ANALYSIS, status: 'idle', error: null, stages: allMissing(), logs: [] },
    // A failed run is about the settings it was given: changing them clears its error.
    setAnalysisSettings: (settings) =>
      set((s) => ({ analysis: { ...s.analysis, settings, ...(s.analysis.status === 'error' ? { status: 'idle', error: null } : {}) } })),
    analysisStarted: () => set((s) => ({ analysis: { ...s.analysis, status: 'running', error: null } })),
    analysisEnded: (status, error) =>
      set((s) => {
        // A stage still 'running' when the job ends was interrupted: it has no result (a rerun resumes it).
        const stages = Object.fromEntries(
          Object.entries(s.analysis.stages).map(([k, v]) => [k, v.state === 'running' ? { ...v, state: 'missing', fraction: 0, etaSeconds: null } : v]),
        ) as Record<AnalysisStage, StageView>;
        return { analysis: { ...s.analysis, status, error: error ?? null, stages } };
      }),
    // Events the engine sent before it saw a cancel arrive after the job ended: they are ignored,
    // or a cancelled stage would show "running 7%" again.
    applyProgress: ({ stage, fraction, etaSeconds }) => {
      if (isAnalysisStage(stage) && get().analysis.status === 'running') patchStage(stage, { state: 'running', fraction, etaSeconds });
    },
    applyStageDone: ({ stage, cached, seconds }) => {
      if (isAnalysisStage(stage) && get().analysis.status === 'running') patchStage(stage, { state: cached ? 'cached' : 'done', fraction: 1, etaSeconds: null, seconds });
    },
    applyStageStates: (stages) =>
      set((s) => {
        const next = { ...s.analysis.stages };
        for (const { stage, state } of stages) next[stage] = { ...missing, state, fraction: state === 'missing' ? 0 : 1 };
        return { analysis: { ...s.analysis, stages: next } };
      }),
    appendLog: ({ level, message }) =>
      set((s) => ({ analysis: { ...s.analysis, logs: [...s.analysis.logs, { at: Date.now(), level, message }].slice(-LOG_LIMIT) } })),
  };
};
