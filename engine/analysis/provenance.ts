/**
 * Where a result came from, for the analysis manifest and the export recipe.
 *
 *   engineVersion() → the `version` of the repository's package.json
 *   sha256File(path, signal?) → hex SHA-256 of a file, streamed (checkpoint shards exceed RAM)
 *
 * The version is read from package.json at run time rather than imported as JSON, so the
 * engine never carries a second copy that could drift from the file.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { CheckpointError } from '../io/checkpoint-error.ts';

const PACKAGE_JSON = new URL('../../package.json', import.meta.url);

let cachedVersion: Promise<string> | undefined;

export function engineVersion(): Promise<string> {
  cachedVersion ??= readFile(PACKAGE_JSON, 'utf8').then((text) => {
    const version = (JSON.parse(text) as { version?: unknown }).version;
    if (typeof version !== 'string') throw new CheckpointError('config', PACKAGE_JSON.pathname, 'has no "version" string');
    return version;
  });
  return cachedVersion;
}

export async function sha256File(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 22, signal })) hash.update(chunk as Buffer);
  } catch (error) {
    if (signal?.aborted === true) throw new CheckpointError('io', path, 'hashing cancelled');
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new CheckpointError('not-found', path, 'file not found');
    throw new CheckpointError('io', path, `could not be read for hashing (${(error as Error).message})`);
  }
  return hash.digest('hex');
}
