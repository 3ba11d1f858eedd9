/**
 * A folder the engine will create (an export target, a new project): it arrives from the UI, so
 * it must be absolute and normalised like every other path, its parent must exist, and if it
 * exists already it must be a folder. Creating it is the caller's business (exports appear
 * atomically, projects on first save).
 */
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, normalize, sep } from 'node:path';
import { ProtocolError } from '../protocol/errors.ts';
import { validatePath } from './path-validator.ts';

export async function validateOutputDir(path: string): Promise<string> {
  if (!isAbsolute(path)) throw new ProtocolError('invalid-path', `${path}: must be an absolute path`);
  if (normalize(path) !== path || (path.length > 1 && path.endsWith(sep))) {
    throw new ProtocolError('invalid-path', `${path}: must be normalised (no ".", "..", doubled or trailing separators)`);
  }
  const kind = await stat(path).then((s) => (s.isDirectory() ? 'directory' : 'file'), () => 'missing');
  if (kind === 'file') throw new ProtocolError('invalid-path', `${path}: is a file, not a folder`);
  if (kind === 'missing') {
    const parent = dirname(path);
    await validatePath(parent, 'directory').catch((error: unknown) => {
      if (error instanceof ProtocolError && error.code === 'not-found') throw new ProtocolError('not-found', `${parent}: the parent folder of ${path} does not exist`);
      throw error;
    });
  }
  return path;
}
