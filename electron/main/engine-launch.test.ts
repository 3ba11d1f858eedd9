import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { engineProcessEnv, hostDataDir } from './engine-launch.ts';

describe('engine launch (main side)', () => {
  it('gives the engine the app userData, or CRANE_DATA_DIR when set', () => {
    expect(hostDataDir({}, '/home/u/.config/CRANE Studio')).toBe('/home/u/.config/CRANE Studio');
    expect(hostDataDir({ CRANE_DATA_DIR: '' }, '/u')).toBe('/u');
    expect(hostDataDir({ CRANE_DATA_DIR: '/tmp/crane-e2e' }, '/u')).toBe('/tmp/crane-e2e');
    expect(hostDataDir({ CRANE_DATA_DIR: 'relative/dir' }, '/u')).toBe(`${process.cwd()}/relative/dir`);
  });
});

describe('engineProcessEnv', () => {
  it('asks glibc for huge pages on Linux, after any tunables already set', () => {
    expect(engineProcessEnv({ PATH: '/bin' }, 'linux')).toEqual({ PATH: '/bin', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' });
    expect(engineProcessEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }, 'linux').GLIBC_TUNABLES).toBe('glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1');
  });

  it("keeps the user's own value for the tunable, and changes nothing off Linux", () => {
    expect(engineProcessEnv({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' }, 'linux').GLIBC_TUNABLES).toBe('glibc.malloc.hugetlb=0');
    expect(engineProcessEnv({ PATH: '/bin' }, 'darwin')).toEqual({ PATH: '/bin' });
  });

  it.runIf(process.platform === 'linux')('starts a Node child whose 256 MiB array lands in huge pages', () => {
    // With THP in `madvise` mode (Debian's default) only the tunable gets the child huge pages;
    // in `always` mode both do, in `never` neither: the assertion follows the machine's mode.
    const mode = /\[(\w+)\]/.exec(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))?.[1];
    const script = "const b = new Uint8Array(256 << 20); b.fill(1); console.log(/AnonHugePages:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/smaps_rollup', 'utf8'))[1]);";
    const hugeKiB = (env: Record<string, string | undefined>) => Number(spawnSync(process.execPath, ['-e', script], { env, encoding: 'utf8' }).stdout.trim());
    const plain = hugeKiB({ ...process.env, GLIBC_TUNABLES: '' });
    const tuned = hugeKiB(engineProcessEnv({ ...process.env, GLIBC_TUNABLES: '' }, 'linux'));
    const most = 256 * 1024;
    if (mode === 'madvise') expect([plain, tuned]).toEqual([0, expect.toSatisfy((kib: number) => kib >= most / 2)]);
    else if (mode === 'always') expect(tuned).toBeGreaterThanOrEqual(most / 2);
    else expect([plain, tuned]).toEqual([0, 0]);
  });
});
