import { describe, expect, it } from 'vitest';
import { colorAt, legendGradient, rampColor, scaleFor, scalePosition } from './color-scale.ts';

describe('colour scales', () => {
  it('spans min..max for sequential metrics and ignores NaN', () => {
    expect(scaleFor([2, NaN, 5, 3], 'sequential')).toEqual({ kind: 'sequential', min: 2, max: 5 });
  });

  it('is symmetric around 0 for diverging metrics', () => {
    expect(scaleFor([-1, 3], 'diverging')).toEqual({ kind: 'diverging', min: -3, max: 3 });
  });

  it('never divides by zero on constant or empty data', () => {
    expect(scaleFor([4, 4], 'sequential')).toEqual({ kind: 'sequential', min: 4, max: 5 });
    expect(scaleFor([], 'sequential')).toEqual({ kind: 'sequential', min: 0, max: 1 });
  });

  it('maps the ends to the first and last stop and clamps outside values', () => {
    const scale = { kind: 'sequential', min: 0, max: 2 } as const;
    expect(colorAt(scale, 0)).toEqual([68, 1, 84]);
    expect(colorAt(scale, 2)).toEqual([253, 231, 37]);
    expect(colorAt(scale, 99)).toEqual([253, 231, 37]);
    expect(scalePosition(scale, 1)).toBe(0.5);
    expect(scalePosition(scale, -5)).toBe(0);
  });

  it('puts 0 at the neutral middle of a diverging scale', () => {
    expect(colorAt({ kind: 'diverging', min: -1, max: 1 }, 0)).toEqual([220, 220, 220]);
  });

  it('interpolates between stops and greys out non-finite values', () => {
    expect(rampColor([[0, 0, 0], [100, 200, 50]], 0.5)).toEqual([50, 100, 25]);
    expect(colorAt({ kind: 'sequential', min: 0, max: 1 }, NaN)).toEqual([128, 128, 128]);
    expect(legendGradient('diverging')).toContain('linear-gradient');
  });
});
