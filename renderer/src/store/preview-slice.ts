/** The instant first-order preview and the measured (verified) losses of each method. */
import type { MergeMethodName, Preview, VerifyResult } from '../protocol.ts';
import { idle, type Loadable, type SliceCreator } from './slice.ts';

export interface VerifyEntry extends Loadable<VerifyResult> {
  readonly fraction: number;
}

export interface PreviewSlice {
  preview: Loadable<Preview>;
  verify: {
    byMethod: Partial<Record<MergeMethodName, VerifyEntry>>;
    /** Every CRANE result measured in this project: the preview chart's measured points. */
    measured: VerifyResult[];
  };
  setPreview(preview: Loadable<Preview>): void;
  setVerify(method: MergeMethodName, entry: Partial<VerifyEntry>): void;
  addMeasured(result: VerifyResult): void;
  setMeasured(results: VerifyResult[]): void;
}

export const createPreviewSlice: SliceCreator<PreviewSlice> = (set) => ({
  preview: idle(),
  verify: { byMethod: {}, measured: [] },
  setPreview: (preview) => set({ preview }),
  setVerify: (method, entry) =>
    set((s) => {
      const previous: VerifyEntry = s.verify.byMethod[method] ?? { ...idle<VerifyResult>(), fraction: 0 };
      return { verify: { ...s.verify, byMethod: { ...s.verify.byMethod, [method]: { ...previous, ...entry } } } };
    }),
  addMeasured: (result) => set((s) => ({ verify: { ...s.verify, measured: [...s.verify.measured, result] } })),
  setMeasured: (measured) => set((s) => ({ verify: { ...s.verify, measured } })),
});
