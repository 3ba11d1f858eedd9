/**
 * The edit's settings with undo/redo. A slider drag is one undo step: updates that carry the same
 * `coalesce` key within COALESCE_MS replace the newest history entry instead of adding one.
 */
import { DEFAULT_CRANE_SETTINGS, PRESETS, type Block, type BlockOverride, type CraneSettings } from '../protocol.ts';
import type { SliceCreator } from './slice.ts';

export const HISTORY_LIMIT = 200;
export const COALESCE_MS = 1000;

export interface SettingsSlice {
  settings: {
    current: CraneSettings;
    past: CraneSettings[];
    future: CraneSettings[];
    lastKey: string | null;
    lastAt: number;
  };
  updateSettings(change: Partial<CraneSettings> | ((s: CraneSettings) => CraneSettings), options?: { coalesce?: string; now?: number }): void;
  undo(): void;
  redo(): void;
  applyPreset(id: string): void;
  setOverride(block: Block, patch: Partial<Pick<BlockOverride, 'gate' | 'locked'>>): void;
  removeOverride(block: Block): void;
  /** Loading a project: new settings, history cleared. */
  resetSettings(settings: CraneSettings): void;
}

export const sameBlock = (a: Block, b: Block) => a.layer === b.layer && a.group === b.group;

export function findOverride(settings: CraneSettings, block: Block): BlockOverride | undefined {
  return settings.overrides.find((o) => sameBlock(o.block, block));
}

export const createSettingsSlice: SliceCreator<SettingsSlice> = (set, get) => ({
  settings: { current: DEFAULT_CRANE_SETTINGS, past: [], future: [], lastKey: null, lastAt: 0 },

  updateSettings: (change, options = {}) =>
    set((s) => {
      const { current, past, lastKey, lastAt } = s.settings;
      const next = typeof change === 'function' ? change(current) : { ...current, ...change };
      const now = options.now ?? Date.now();
      const key = options.coalesce ?? null;
      const merge = key !== null && key === lastKey && now - lastAt < COALESCE_MS && past.length > 0;
      return {
        settings: {
          current: next,
          past: merge ? past : [...past, current].slice(-HISTORY_LIMIT),
          future: [],
          lastKey: key,
          lastAt: now,
        },
      };
    }),

  undo: () =>
    set((s) => {
      const { current, past, future } = s.settings;
      const previous = past.at(-1);
      if (previous === undefined) return s;
      return { settings: { current: previous, past: past.slice(0, -1), future: [current, ...future], lastKey: null, lastAt: 0 } };
    }),

  redo: () =>
    set((s) => {
      const { current, past, future } = s.settings;
      const [next, ...rest] = future;
      if (next === undefined) return s;
      return { settings: { current: next, past: [...past, current], future: rest, lastKey: null, lastAt: 0 } };
    }),

  applyPreset: (id) => {
    const preset = PRESETS.find((p) => p.id === id);
    if (preset !== undefined) get().updateSettings(preset.patch);
  },

  setOverride: (block, patch) =>
    get().updateSettings(
      (s) => {
        const existing = findOverride(s, block) ?? { block, gate: null, locked: false };
        const updated = { ...existing, ...patch };
        const rest = s.overrides.filter((o) => !sameBlock(o.block, block));
        // An override that changes nothing is removed rather than kept as noise.
        return { ...s, overrides: updated.gate === null && !updated.locked ? rest : [...rest, updated] };
      },
      { coalesce: `override:${block.layer}:${block.group}:${'gate' in patch ? 'gate' : 'lock'}` },
    ),

  removeOverride: (block) => get().updateSettings((s) => ({ ...s, overrides: s.overrides.filter((o) => !sameBlock(o.block, block)) })),

  resetSettings: (current) => set({ settings: { current, past: [], future: [], lastKey: null, lastAt: 0 } }),
});
