import { describe, expect, it } from 'vitest';
import { formatBytes } from './format-bytes.ts';

describe('formatBytes', () => {
  it('prints whole bytes below 1 KiB', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
  });

  it('keeps three significant digits in binary units', () => {
    expect(formatBytes(1536)).toBe('1.50 KiB');
    expect(formatBytes(12.34 * 1024 ** 2)).toBe('12.3 MiB');
    expect(formatBytes(118 * 1024 ** 3)).toBe('118 GiB');
  });

  it('stops at TiB', () => {
    expect(formatBytes(2048 * 1024 ** 4)).toBe('2048 TiB');
  });
});
