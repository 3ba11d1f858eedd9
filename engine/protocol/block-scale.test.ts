import { describe, expect, it } from 'vitest';
import { blockScale, overrideScale } from './block-scale.ts';

describe('the α·S rule', () => {
  it('gives a locked block 0, a hand-set block its S, and a merely touched one nothing', () => {
    expect(overrideScale({ gate: 2.5, locked: true })).toBe(0);
    expect(overrideScale({ gate: null, locked: true })).toBe(0);
    expect(overrideScale({ gate: 2.5, locked: false })).toBe(2.5);
    expect(overrideScale({ gate: 0, locked: false })).toBe(0);
    expect(overrideScale({ gate: null, locked: false })).toBeUndefined();
  });

  it('lets an override win, also with the gate off; otherwise S with the gate on and 1 with it off', () => {
    expect(blockScale(true, 0.4)).toBe(0.4);
    expect(blockScale(false, 0.4)).toBe(1);
    expect(blockScale(true, 0.4, 0)).toBe(0);
    expect(blockScale(false, 0.4, 1.7)).toBe(1.7);
    expect(blockScale(true, undefined)).toBe(1);
  });

});
