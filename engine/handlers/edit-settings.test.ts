import { describe, expect, it } from 'vitest';
import { DEFAULT_CRANE_SETTINGS } from '../protocol/settings-defaults.ts';
import { resolveCraneSettings } from './edit-settings.ts';

describe('resolveCraneSettings', () => {
  const tokens = { think: [7, 8], special: [1, 2, 3] };

  it('protects the tokenizer\'s rows as they are without edits', () => {
    expect(resolveCraneSettings(DEFAULT_CRANE_SETTINGS, null, tokens).tokens).toEqual(tokens);
  });

  it('applies the user\'s protected-row edits and keeps them beside the result (the recipe shows both)', () => {
    const settings = { ...DEFAULT_CRANE_SETTINGS, special: { ...DEFAULT_CRANE_SETTINGS.special, protectedTokens: { add: [9], remove: [2] } } };
    const resolved = resolveCraneSettings(settings, null, tokens);
    expect(resolved.tokens).toEqual({ think: [7, 8], special: [1, 3, 9] });
    expect(resolved.special.protectedTokens).toEqual({ add: [9], remove: [2] });
  });
});
