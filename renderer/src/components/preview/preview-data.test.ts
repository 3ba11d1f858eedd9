import { describe, expect, it } from 'vitest';
import { niceRange, niceTicks } from './preview-data.ts';

describe('preview axis ticks', () => {
  it('rounds the range out to a 1-2-5 step', () => {
    expect(niceRange([-0.364, 0.185])).toEqual([-0.4, 0.2, 0.2]);
  });

  it('prints zero as 0, not as float residue (-0.6 + 3·0.2 = 1.1e-16)', () => {
    expect(niceTicks(-0.6, 0.6, 0.2)).toEqual([-0.6, -0.4, -0.2, 0, 0.2, 0.4, 0.6]);
    expect(niceTicks(-2.5, 0.5, 0.5)).toEqual([-2.5, -2, -1.5, -1, -0.5, 0, 0.5]);
  });
});
