import { describe, expect, it } from 'vitest';
import { DEFAULT_CRANE_SETTINGS } from '../protocol.ts';
import { settingsKey, shortHash } from './settings-key.ts';

const override = (layer: number, group: string) => ({ block: { layer, group }, gate: 0.5, locked: false });

describe('settingsKey', () => {
  it('is the same for the same settings whatever the key and override order', () => {
    const a = { ...DEFAULT_CRANE_SETTINGS, overrides: [override(2, 'ffn'), override(1, 'attention')] };
    const reordered = Object.fromEntries(Object.entries({ ...a, overrides: [override(1, 'attention'), override(2, 'ffn')] }).reverse()) as typeof a;
    expect(settingsKey(reordered)).toBe(settingsKey(a));
  });

  it('differs when any value differs, also deep inside', () => {
    const base = settingsKey(DEFAULT_CRANE_SETTINGS);
    expect(settingsKey({ ...DEFAULT_CRANE_SETTINGS, alpha: 0.3 })).not.toBe(base);
    expect(settingsKey({ ...DEFAULT_CRANE_SETTINGS, stages: { ...DEFAULT_CRANE_SETTINGS.stages, gsp: false } })).not.toBe(base);
    expect(settingsKey({ method: 'crane', settings: DEFAULT_CRANE_SETTINGS })).not.toBe(settingsKey({ method: 'task_arithmetic', lambda: 0.25 }));
  });
});

describe('shortHash', () => {
  it('prints 8 hex digits that follow the key', () => {
    expect(shortHash('a')).toMatch(/^[0-9a-f]{8}$/);
    expect(shortHash('a')).toBe(shortHash('a'));
    expect(shortHash('a')).not.toBe(shortHash('b'));
  });
});
