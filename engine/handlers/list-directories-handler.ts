/**
 * listDirectories: the folders inside a folder, for the browser-mode path field's completion.
 * Only inside the roots this session was given — the data folder, the open project's folder and
 * the checkpoint folders it names (Instruct, Thinking, Base) — never elsewhere: a page served on
 * localhost must not be able to map the disk. Roots and the asked folder are compared after
 * resolving symlinks, so a link inside a root that points outside it is refused too. Hidden
 * folders are left out; at most MAX_LISTED_DIRECTORIES names are returned, sorted.
 */
import { readdir, realpath } from 'node:fs/promises';
import { sep } from 'node:path';
import { MAX_LISTED_DIRECTORIES } from '../protocol/directory-schemas.ts';
import { ProtocolError } from '../protocol/errors.ts';
import type { Params, Result } from '../protocol/methods.ts';
import type { EngineSession } from './engine-session.ts';
import { guarded } from './handler-errors.ts';
import { validatePath } from './path-validator.ts';

/** The folders completion may look inside: the data folder and what the open project names. */
export function completionRoots(session: EngineSession, dataDir: string | null): string[] {
  const open = session.project;
  const named = open === null ? [] : [open.dir, open.project.instruct, open.project.thinking, open.project.base ?? null];
  return [dataDir, ...named].filter((dir): dir is string => typeof dir === 'string' && dir !== '');
}

const inside = (path: string, root: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

export function listDirectoriesHandler(session: EngineSession, dataDir: string | null) {
  return ({ dir }: Params<'listDirectories'>): Promise<Result<'listDirectories'>> =>
    guarded(async () => {
      const real = await realpath(await validatePath(dir, 'directory'));
      const roots = await Promise.all(completionRoots(session, dataDir).map((root) => realpath(root).catch(() => null)));
      if (!roots.some((root) => root !== null && inside(real, root))) {
        throw new ProtocolError('invalid-path', `${dir}: folder names are completed only inside the data folder and the folders of the open project`);
      }
      const names = (await readdir(real, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
        .map((entry) => entry.name)
        .sort();
      return { dir, directories: names.slice(0, MAX_LISTED_DIRECTORIES), truncated: names.length > MAX_LISTED_DIRECTORIES };
    });
}
