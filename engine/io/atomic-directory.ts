/**
 * Builds a directory next to its final place and renames it in only when complete, so a crash,
 * a full disk or a cancel never leaves something at the target path that looks finished.
 *
 * The build happens in a hidden sibling named after its owner (stale-siblings.ts): siblings left
 * by killed builds of the same target are reclaimed first. Before the rename every file and
 * folder of the build is fsynced, and the parent after it (durable-sync.ts). An existing target
 * is replaced only with `overwrite` and only when `assertReplaceable` accepts it — a caller
 * replacing a user-chosen folder must check the folder is one of its own outputs, since the old
 * folder is deleted.
 */
import { lstat, mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CheckpointError } from './checkpoint-error.ts';
import { syncDirectory, syncTree } from './durable-sync.ts';
import { guardWrite } from './safetensors-writer.ts';
import { reclaimStaleSiblings, siblingPath } from './stale-siblings.ts';

export interface AtomicDirectoryOptions {
  /** Replace an existing target (it is swapped out only after the new one is complete). */
  readonly overwrite?: boolean;
  /** Throws, naming the reason, when the existing target is not a folder this build may replace. */
  readonly assertReplaceable?: (existing: string) => Promise<void>;
}

export async function buildDirectoryAtomically<T>(
  target: string,
  build: (workDir: string) => Promise<T>,
  options: AtomicDirectoryOptions = {},
): Promise<T> {
  const parent = dirname(target);
  await makeParent(parent);
  await guardWrite(target, undefined, () => reclaimStaleSiblings(target));
  const exists = await pathExists(target);
  if (exists && options.overwrite !== true) {
    throw new CheckpointError('exists', target, 'output folder already exists (choose another or allow overwrite)');
  }
  if (exists) await options.assertReplaceable?.(target);
  const workDir = siblingPath(target, 'tmp');
  await guardWrite(workDir, undefined, () => mkdir(workDir));
  try {
    const result = await build(workDir);
    await syncTree(workDir);
    await guardWrite(target, undefined, () => (exists ? swapIn(workDir, target) : rename(workDir, target)));
    await syncDirectory(parent);
    return result;
  } catch (error) {
    await rm(workDir, { recursive: true, force: true });
    throw error;
  }
}

/** Old aside, new in, old removed; if the second rename fails the old folder goes back. */
async function swapIn(workDir: string, target: string): Promise<void> {
  const old = siblingPath(target, 'old');
  await rename(target, old);
  try {
    await rename(workDir, target);
  } catch (error) {
    await rename(old, target);
    throw error;
  }
  await rm(old, { recursive: true, force: true });
}

/** The folder the output goes in, made if missing; a file in its place (or above it) is named as such. */
async function makeParent(parent: string): Promise<void> {
  // guardWrite passes a CheckpointError through and words any other failure.
  await guardWrite(parent, undefined, () => mkdir(parent, { recursive: true }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      throw new CheckpointError('not-a-file', parent, 'is, or lies inside, a file rather than a folder: the output folder cannot be made there');
    }
    throw error;
  }));
}

/** lstat: a symlink (even a dangling one) at the target is something that exists. */
async function pathExists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
