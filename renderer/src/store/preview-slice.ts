/**
 * The instant first-order preview and the measured (verified) losses of every method.
 *
 * Each result carries the settings it was computed for: the preview its settings key
 * (lib/settings-key.ts), a Verify result its whole method. Views compare them with the settings
 * on screen and show a result as current only when they match (measured-results.ts).
 */
import type { MergeMethodName, Preview, VerifyResult } from '../protocol.ts';
import { idle, type Loadable, type SliceCreator } from './slice.ts';

/** A Verify job of one method; its results land in `measured`, not here. */
export interface VerifyJob {
  readonly status: 'idle' | 'running' | 'cancelled' | 'error';
  readonly fraction: number;
  readonly error: Loadable<VerifyResult>['error'];
}

export interface PreviewSlice {
  preview: Loadable<Preview>;
  /** Settings key of `preview.result`; null before the first result. */
  previewFor: string | null;
  /** A preview request for newer settings is on its way. */
  previewPending: boolean;
  verify: {
    jobs: Partial<Record<MergeMethodName, VerifyJob>>;
    /** Every result measured in this project, oldest first (saved with it). */
    measured: VerifyResult[];
  };
  setPreview(preview: Loadable<Preview>, computedFor?: string): void;
  setPreviewPending(pending: boolean): void;
  setVerifyJob(method: MergeMethodName, job: Partial<VerifyJob>): void;
  clearVerifyJobs(): void;
  addMeasured(result: VerifyResult): void;
  setMeasured(results: VerifyResult[]): void;
}

const NO_JOB: VerifyJob = { status: 'idle', fraction: 0, error: null };

export const createPreviewSlice: SliceCreator<PreviewSlice> = (set) => ({
  preview: idle(),
  previewFor: null,
  previewPending: false,
  verify: { jobs: {}, measured: [] },
  setPreview: (preview, computedFor) => set((s) => ({ preview, previewFor: preview.result === null ? null : (computedFor ?? s.previewFor) })),
  setPreviewPending: (previewPending) => set((s) => (s.previewPending === previewPending ? s : { previewPending })),
  setVerifyJob: (method, job) =>
    set((s) => ({ verify: { ...s.verify, jobs: { ...s.verify.jobs, [method]: { ...(s.verify.jobs[method] ?? NO_JOB), ...job } } } })),
  clearVerifyJobs: () => set((s) => ({ verify: { ...s.verify, jobs: {} } })),
  addMeasured: (result) => set((s) => ({ verify: { ...s.verify, measured: [...s.verify.measured, result] } })),
  setMeasured: (measured) => set((s) => ({ verify: { ...s.verify, measured } })),
});
