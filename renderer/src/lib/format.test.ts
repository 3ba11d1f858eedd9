import { describe, expect, it } from 'vitest';
import { formatNumber, formatSigned } from './format.ts';

describe('number formats', () => {
  it('shows 3 significant digits, in exponent form only below 1e-3', () => {
    expect(formatNumber(0.61634)).toBe('0.616');
    expect(formatNumber(0.0123456)).toBe('0.0123');
    expect(formatNumber(0.00012345)).toBe('1.23e-4');
    expect(formatNumber(153.333)).toBe('153');
    expect(formatNumber(123456)).toBe('123000');
    expect(formatNumber(1.5e21)).toBe('1500000000000000000000');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(Number.NaN)).toBe('—');
  });

  it('signs positive values', () => {
    expect(formatSigned(0.5)).toBe('+0.5');
    expect(formatSigned(-8.47e-5)).toBe('-8.47e-5');
  });
});
