/**
 * One file written so a reader sees the old content or the new, never a part: the data goes to a
 * hidden sibling of its own (concurrent writers of one file each get one, and the last rename
 * wins), is flushed to disk, then renamed over the target. A failed write removes its sibling.
 *
 *   await writeFileAtomic(path, data)     data: text, bytes, or byte chunks written in order
 *
 * Errors are the file system's own; callers that name files in CheckpointErrors wrap them.
 */
import { open, rename, rm } from 'node:fs/promises';
import { siblingPath } from './stale-siblings.ts';

export async function writeFileAtomic(path: string, data: string | Uint8Array | readonly Uint8Array[]): Promise<void> {
  const temporary = siblingPath(path, 'tmp');
  try {
    const handle = await open(temporary, 'wx');
    try {
      for (const chunk of typeof data === 'string' ? [Buffer.from(data)] : data instanceof Uint8Array ? [data] : data) await handle.write(chunk);
      // Durable before it is visible: a crash after the rename must not leave an empty file.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
