/**
 * Builds a directory next to its final place and renames it in only when complete, so a crash,
 * a full disk or a cancel never leaves something at the target path that looks finished.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CheckpointError } from './checkpoint-error.ts';
import { guardWrite } from './safetensors-writer.ts';

/** Marker in the names of directories under construction (hidden, never the target name). */
export const TEMP_MARKER = '.crane-tmp-';

export interface AtomicDirectoryOptions {
  /** Replace an existing target (it is swapped out only after the new one is complete). */
  readonly overwrite?: boolean;
}

export async function buildDirectoryAtomically<T>(
  target: string,
  build: (workDir: string) => Promise<T>,
  options: AtomicDirectoryOptions = {},
): Promise<T> {
  const exists = await pathExists(target);
  if (exists && options.overwrite !== true) {
    throw new CheckpointError('exists', target, 'output folder already exists (choose another or allow overwrite)');
  }
  await guardWrite(dirname(target), undefined, () => mkdir(dirname(target), { recursive: true }));
  const workDir = siblingName(target, 'tmp');
  await guardWrite(workDir, undefined, () => mkdir(workDir));
  try {
    const result = await build(workDir);
    if (exists) {
      const old = siblingName(target, 'old');
      await rename(target, old);
      await rename(workDir, target);
      await rm(old, { recursive: true, force: true });
    } else {
      await guardWrite(target, undefined, () => rename(workDir, target));
    }
    return result;
  } catch (error) {
    await rm(workDir, { recursive: true, force: true });
    throw error;
  }
}

function siblingName(target: string, kind: 'tmp' | 'old'): string {
  const marker = kind === 'tmp' ? TEMP_MARKER : '.crane-old-';
  return join(dirname(target), `.${basename(target)}${marker}${randomBytes(6).toString('hex')}`);
}

async function pathExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
