/**
 * The repository as it was at commit `rev`, for benchmarks that measure before and after a
 * change in one run (bench-export.ts, bench-memory.ts --moe, bench-preview.ts): its tree (or only
 * `paths` of it) extracted by `git archive` into `root`, this checkout's node_modules linked in.
 * Returns the extracted folder.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';

const REPOSITORY = join(import.meta.dirname, '..');

export async function treeAt(rev: string, root: string, paths: readonly string[] = []): Promise<string> {
  const dir = join(root, `engine-${rev}`);
  await mkdir(dir);
  execFileSync('sh', ['-c', 'rev="$1" dir="$2"; shift 2; git -C "$0" archive "$rev" "$@" | tar -x -C "$dir"', REPOSITORY, rev, dir, ...paths]);
  await symlink(join(REPOSITORY, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}
