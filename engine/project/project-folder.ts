/**
 * Where a project may be written, and writing it there.
 *
 *   makeFolder(dir)                 creates `dir` and its missing parents one level at a time
 *   saveProjectFolder(dir, project) project.json into `dir`: created when missing, otherwise it
 *                                   must be empty or already hold a CRANE project; saves of one
 *                                   folder are applied in call order
 *
 * Node's `mkdir(…, { recursive: true })` never returns on some paths (`/proc/x` on Linux spins a
 * core), so folders are made with plain mkdir calls, bounded by the path's depth. A folder that
 * holds anything but a project is refused, so opening or saving a project never scatters a
 * project.json and an analysis cache into someone's checkpoint or home folder.
 */
import { mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ProtocolError } from '../protocol/errors.ts';
import { readProjectFile, writeProjectFile, type StoredProject } from './project-file.ts';
import { PROJECT_FILE } from './project-layout.ts';

export async function makeFolder(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = resolve(dir); ; at = dirname(at)) {
    const kind = await entryKind(at);
    if (kind === 'directory') break;
    if (kind === 'other') throw new ProtocolError('invalid-path', `${at}: is not a folder, so ${dir} cannot be created`);
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const path of missing.reverse()) {
    try {
      // Owner-only: projects hold paths and caches nobody else should plant or read.
      await mkdir(path, { mode: 0o700 });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && (await entryKind(path)) === 'directory') continue;
      throw new ProtocolError('invalid-path', `${path}: cannot be created (${code ?? (error as Error).message})`);
    }
  }
}

/** Saves still running, per folder: the next save of that folder waits for them. */
const pendingSaves = new Map<string, Promise<void>>();

/**
 * Saves of one folder run one after another in call order, so the last save asked for is the
 * one on disk (and every caller gets its answer), however the file system orders the writes.
 */
export async function saveProjectFolder(dir: string, project: StoredProject): Promise<void> {
  const key = resolve(dir);
  const save = (pendingSaves.get(key) ?? Promise.resolve())
    .catch(() => undefined)
    .then(async () => {
      await makeFolder(dir);
      await requireProjectFolder(dir);
      await writeProjectFile(dir, project);
    });
  pendingSaves.set(key, save);
  try {
    await save;
  } finally {
    if (pendingSaves.get(key) === save) pendingSaves.delete(key);
  }
}

/** Empty, or a folder whose project.json is a CRANE project (a broken one says why it is refused). */
async function requireProjectFolder(dir: string): Promise<void> {
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    throw new ProtocolError('invalid-path', `${dir}: cannot be read (${error.code ?? error.message})`);
  });
  if (entries.length === 0) return;
  if (!entries.includes(PROJECT_FILE)) {
    throw new ProtocolError('invalid-path', `${dir}: is neither empty nor a CRANE project folder (no ${PROJECT_FILE}); choose an empty or a new folder`);
  }
  await readProjectFile(dir);
}

async function entryKind(path: string): Promise<'directory' | 'other' | 'missing'> {
  try {
    return (await stat(path)).isDirectory() ? 'directory' : 'other';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'missing';
    if (code === 'ENOTDIR') return 'other';
    throw new ProtocolError('invalid-path', `${path}: cannot be read (${code ?? (error as Error).message})`);
  }
}
