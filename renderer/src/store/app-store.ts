/**
 * One zustand store built from typed slices. It is a vanilla store (no React inside), so engine
 * push events and async actions update it directly; components read it through useApp().
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { createAnalysisSlice, type AnalysisSlice } from './analysis-slice.ts';
import { createConnectionSlice, type ConnectionSlice } from './connection-slice.ts';
import { createExpertsSlice, type ExpertsSlice } from './experts-slice.ts';
import { createExportSlice, type ExportSlice } from './export-slice.ts';
import { createGatesSlice, type GatesSlice } from './gates-slice.ts';
import { createMethodsSlice, type MethodsSlice } from './methods-slice.ts';
import { createPairSlice, type PairSlice } from './pair-slice.ts';
import { createPassesSlice, type PassesSlice } from './passes-slice.ts';
import { createPreviewSlice, type PreviewSlice } from './preview-slice.ts';
import { createSelectionSlice, type SelectionSlice } from './selection-slice.ts';
import { createSettingsSlice, type SettingsSlice } from './settings-slice.ts';
import { createSideBySideSlice, type SideBySideSlice } from './side-by-side-slice.ts';
import { createUiSlice, type UiSlice } from './ui-slice.ts';

export type AppState = ConnectionSlice &
  PairSlice &
  AnalysisSlice &
  SettingsSlice &
  GatesSlice &
  ExpertsSlice &
  PassesSlice &
  PreviewSlice &
  SelectionSlice &
  SideBySideSlice &
  ExportSlice &
  MethodsSlice &
  UiSlice;

export type AppStore = StoreApi<AppState>;

export function createAppStore(): AppStore {
  return createStore<AppState>()((...a) => ({
    ...createConnectionSlice(...a),
    ...createPairSlice(...a),
    ...createAnalysisSlice(...a),
    ...createSettingsSlice(...a),
    ...createGatesSlice(...a),
    ...createExpertsSlice(...a),
    ...createPassesSlice(...a),
    ...createPreviewSlice(...a),
    ...createSelectionSlice(...a),
    ...createSideBySideSlice(...a),
    ...createExportSlice(...a),
    ...createMethodsSlice(...a),
    ...createUiSlice(...a),
  }));
}
