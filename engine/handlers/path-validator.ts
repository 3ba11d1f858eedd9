/**
 * Paths the UI asks the engine to open arrive from a browser: they must be absolute and already
 * normalised (no `.`/`..` segments, doubled or trailing separators), exist, and be the kind of
 * entry the request expects. Anything else is refused before the engine touches it.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, normalize, sep } from 'node:path';
import { ProtocolError } from '../protocol/errors.ts';

export type PathKind = 'directory' | 'file';

export async function validatePath(path: string, kind: PathKind): Promise<string> {
  if (!isAbsolute(path)) throw new ProtocolError('invalid-path', `${path}: must be an absolute path`);
  if (normalize(path) !== path || (path.length > 1 && path.endsWith(sep))) {
    throw new ProtocolError('invalid-path', `${path}: must be normalised (no ".", "..", doubled or trailing separators)`);
  }
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ProtocolError('not-found', `${path}: does not exist`);
    throw new ProtocolError('invalid-path', `${path}: cannot be read (${code ?? 'unknown error'})`);
  }
  if (kind === 'directory' && !isDirectory) throw new ProtocolError('invalid-path', `${path}: is not a folder`);
  if (kind === 'file' && isDirectory) throw new ProtocolError('invalid-path', `${path}: is a folder, not a file`);
  return path;
}
