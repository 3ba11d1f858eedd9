import { describe, expect, it } from 'vitest';
import { METHOD_LABELS, METHOD_NAMES, methodUnavailable } from './merge-methods.ts';

describe('merge methods in the UI', () => {
  it('labels RAIN and says it needs a Base checkpoint exactly when the project has none', () => {
    expect(METHOD_LABELS.rain).toBe('RAIN');
    expect(methodUnavailable('rain', false)).toBe('needs a Base checkpoint');
    expect(methodUnavailable('rain', true)).toBeNull();
    // every other method runs on the pair alone
    expect(METHOD_NAMES.filter((m) => methodUnavailable(m, false) !== null)).toEqual(['rain']);
  });
});
