import { describe, expect, it } from 'vitest';
import { hostDataDir } from './engine-launch.ts';

describe('engine launch (main side)', () => {
  it('gives the engine the app userData, or CRANE_DATA_DIR when set', () => {
    expect(hostDataDir({}, '/home/u/.config/CRANE Studio')).toBe('/home/u/.config/CRANE Studio');
    expect(hostDataDir({ CRANE_DATA_DIR: '' }, '/u')).toBe('/u');
    expect(hostDataDir({ CRANE_DATA_DIR: '/tmp/crane-e2e' }, '/u')).toBe('/tmp/crane-e2e');
    expect(hostDataDir({ CRANE_DATA_DIR: 'relative/dir' }, '/u')).toBe(`${process.cwd()}/relative/dir`);
  });
});
