import { describe, expect, it } from 'vitest';
import { checkPath } from './path-check.ts';

describe('checkPath', () => {
  it('accepts absolute normalised paths', () => {
    expect(checkPath('/models/qwen3')).toEqual({ ok: true });
    expect(checkPath('C:\\models\\qwen3')).toEqual({ ok: true });
  });
  it.each([
    ['', 'Enter a folder path.'],
    ['models/qwen3', 'Use an absolute path'],
    ['/a/../b', 'normalised'],
    ['/a//b', 'empty segment'],
    [' /a', 'spaces'],
  ])('refuses %j', (path, message) => {
    const check = checkPath(path);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toContain(message);
  });
});
