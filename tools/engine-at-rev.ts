/**
 * The repository as it was at commit `rev`, for benchmarks that measure before and after a
 * change in one run (bench-export.ts, bench-memory-moe.ts): its tree extracted by `git archive`
 * into `root`, this checkout's node_modules linked in. Returns the extracted folder.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';

const REPOSITORY = join(import.meta.dirname, '..');

export async function treeAt(rev: string, root: string): Promise<string> {
  const dir = join(root, `engine-${rev}`);
  await mkdir(dir);
  execFileSync('sh', ['-c', 'git -C "$0" archive "$1" | tar -x -C "$2"', REPOSITORY, rev, dir]);
  await symlink(join(REPOSITORY, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}
