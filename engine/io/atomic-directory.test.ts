/**
 * The atomic directory build against real folders and processes: reclaiming what killed builds
 * left (only when their owner is gone), refusing to replace a folder the caller does not accept,
 * and fsync of everything before the rename (observed with strace where it exists).
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDirectoryAtomically } from './atomic-directory.ts';
import { CheckpointError } from './checkpoint-error.ts';
import { reclaimStaleSiblings, siblingPath } from './stale-siblings.ts';
import { withTempDir } from './testing/fixtures.ts';

/** The pid of a process that has exited (pids are not reused that fast). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid as number;
}

/** A sibling name as a build by `pid` on this host would have made it. */
function siblingOf(target: string, kind: 'tmp' | 'old', pid: number): string {
  return basename(siblingPath(target, kind)).replace(`-${process.pid}-`, `-${pid}-`);
}

const writeOne = (text: string) => async (work: string) => writeFile(join(work, 'file.txt'), text);

describe('stale siblings of killed builds', () => {
  it('removes temp folders of dead owners of the same target and keeps live, foreign and unowned ones', async () => {
    await withTempDir(async (root) => {
      const target = join(root, 'out');
      const dead = deadPid();
      const names = {
        dead: siblingOf(target, 'tmp', dead),
        deadOld: siblingOf(target, 'old', dead),
        live: siblingOf(target, 'tmp', process.ppid),
        otherTarget: siblingOf(join(root, 'other'), 'tmp', dead),
        otherHost: siblingOf(target, 'tmp', dead).replace(/crane-tmp-[0-9a-f]{8}-/, 'crane-tmp-00000000-'),
        legacy: '.out.crane-tmp-0123456789ab',
      };
      for (const name of Object.values(names)) await mkdir(join(root, name));
      await mkdir(join(root, 'out'));
      expect((await reclaimStaleSiblings(target)).sort()).toEqual([names.dead, names.deadOld].sort());
      expect((await readdir(root)).sort()).toEqual([names.live, names.otherTarget, names.otherHost, names.legacy, 'out'].sort());
    });
  });

  it('puts the previous output back when a kill fell between moving it aside and renaming the new one in', async () => {
    await withTempDir(async (root) => {
      const target = join(root, 'out');
      const old = join(root, siblingOf(target, 'old', deadPid()));
      await mkdir(old);
      await writeFile(join(old, 'file.txt'), 'previous');
      await reclaimStaleSiblings(target);
      expect(await readdir(root)).toEqual(['out']);
      expect(await readFile(join(target, 'file.txt'), 'utf8')).toBe('previous');
    });
  });

  it('reclaims on the next build, which then completes', async () => {
    await withTempDir(async (root) => {
      const target = join(root, 'out');
      await mkdir(join(root, siblingOf(target, 'tmp', deadPid())));
      await buildDirectoryAtomically(target, writeOne('new'));
      expect(await readdir(root)).toEqual(['out']);
    });
  });
});

describe('replacing an existing folder', () => {
  it('asks the caller and leaves a refused folder untouched', async () => {
    await withTempDir(async (root) => {
      const target = join(root, 'out');
      await mkdir(target);
      await writeFile(join(target, 'mine.txt'), 'keep');
      const refuse = async (dir: string) => { throw new CheckpointError('exists', dir, 'not ours'); };
      await expect(buildDirectoryAtomically(target, writeOne('new'), { overwrite: true, assertReplaceable: refuse })).rejects.toThrow(`${target}: not ours`);
      expect(await readdir(root)).toEqual(['out']);
      expect(await readdir(target)).toEqual(['mine.txt']);
      await buildDirectoryAtomically(target, writeOne('new'), { overwrite: true, assertReplaceable: async () => undefined });
      expect(await readdir(target)).toEqual(['file.txt']);
      expect(await readdir(root)).toEqual(['out']);
    });
  });
});

describe('where the output cannot go', () => {
  it('names a file standing where the parent folder should be, and writes nothing', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'a-file'), 'x');
      for (const target of [join(root, 'a-file', 'out'), join(root, 'a-file', 'deeper', 'out')]) {
        const build = buildDirectoryAtomically(target, writeOne('new'));
        await expect(build).rejects.toThrow(CheckpointError);
        await expect(build).rejects.toThrow(/: is, or lies inside, a file rather than a folder: the output folder cannot be made there$/);
      }
      expect(await readdir(root)).toEqual(['a-file']);
    });
  });
});

describe('durability', () => {
  it('fsyncs every file and the folder before the rename, and the parent after it', async (context) => {
    if (spawnSync('strace', ['-V']).status !== 0) {
      console.warn('SKIPPED fsync order test: strace is not installed');
      context.skip();
    }
    await withTempDir(async (root) => {
      const target = join(root, 'out');
      const traceFile = join(root, 'trace.txt');
      const args = ['-f', '-y', '-qq', '-o', traceFile, '-e', 'trace=fsync,rename,renameat,renameat2', process.execPath, '--import', 'tsx', 'engine/io/testing/slow-export.ts', target];
      const run = spawnSync('strace', args, { encoding: 'utf8', env: { ...process.env, SLOW_EXPORT_DELAY_MS: '0' } });
      if (run.status !== 0 && /ptrace|Operation not permitted/.test(run.stderr)) {
        console.warn('SKIPPED fsync order test: this machine does not allow ptrace');
        context.skip();
      }
      expect(run.stderr).toBe('');
      const trace = await readFile(traceFile, 'utf8');
      const lines = trace.split('\n');
      const renameIn = lines.findIndex((l) => /rename/.test(l) && l.includes(`"${target}"`) && l.includes('.out.crane-tmp-'));
      expect(renameIn).toBeGreaterThan(0);
      const workDir = /"([^"]*\.out\.crane-tmp-[^"]*)"/.exec(lines[renameIn] as string)?.[1] as string;
      // With -f every line starts with the thread id; -y prints the path of each fd as <path>.
      const synced = (path: string, from: number, to: number) => lines.slice(from, to).some((l) => l.includes(' fsync(') && l.includes(`<${path}>)`));
      for (const file of await readdir(target)) expect(synced(join(workDir, file), 0, renameIn), file).toBe(true);
      expect(synced(workDir, 0, renameIn)).toBe(true);
      expect(synced(root, renameIn, lines.length)).toBe(true);
    });
  });
});
