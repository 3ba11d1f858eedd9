/** The export dialog: its form, the running job's progress, and the summary with the recipe. */
import type { ErrorInfo, ExportDtype, ExportSummary, MergeMethodName } from '../protocol.ts';
import type { JobStatus } from './analysis-slice.ts';
import type { SliceCreator } from './slice.ts';

export interface ExportForm {
  outDir: string;
  dtype: ExportDtype;
  shardGiB: number;
  method: MergeMethodName;
  overwrite: boolean;
}

const GiB = 1024 ** 3;

/** The shard budget an export is asked for: the form's GiB, at least the protocol's 1 MiB. */
export const shardBytesOf = (form: Pick<ExportForm, 'shardGiB'>): number => Math.max(1 << 20, Math.round(form.shardGiB * GiB));

export interface ExportSlice {
  exporting: {
    open: boolean;
    form: ExportForm;
    status: JobStatus;
    fraction: number;
    etaSeconds: number | null;
    summary: ExportSummary | null;
    error: ErrorInfo | null;
  };
  setExportOpen(open: boolean): void;
  setExportForm(patch: Partial<ExportForm>): void;
  setExportJob(patch: Partial<Omit<ExportSlice['exporting'], 'open' | 'form'>>): void;
}

export const createExportSlice: SliceCreator<ExportSlice> = (set) => ({
  exporting: {
    open: false,
    form: { outDir: '', dtype: 'source', shardGiB: 5, method: 'crane', overwrite: false },
    status: 'idle',
    fraction: 0,
    etaSeconds: null,
    summary: null,
    error: null,
  },
  setExportOpen: (open) => set((s) => ({ exporting: { ...s.exporting, open } })),
  // A failed export is about the form it was given (an existing folder, a missing parent): editing it clears the error.
  setExportForm: (patch) =>
    set((s) => ({
      exporting: { ...s.exporting, form: { ...s.exporting.form, ...patch }, ...(s.exporting.status === 'error' ? { status: 'idle', error: null } : {}) },
    })),
  setExportJob: (patch) => set((s) => ({ exporting: { ...s.exporting, ...patch } })),
});
