/**
 * fsync for atomic directory builds: a rename is atomic, but without these a power cut shortly
 * after it can leave the new name pointing at empty or partly written files.
 *
 *   syncTree(dir)        every file under dir, then every folder bottom-up (before the rename)
 *   syncDirectory(dir)   one folder's entries (the parent, after the rename)
 *
 * Files are opened read-write because Windows flushes only handles with write access; folders
 * cannot be opened there at all (NTFS journals its metadata), so folder syncs are POSIX-only.
 */
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { guardWrite } from './safetensors-writer.ts';

export async function syncTree(dir: string): Promise<void> {
  for (const entry of await guardWrite(dir, undefined, () => readdir(dir, { withFileTypes: true }))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await syncTree(path);
    else if (entry.isFile()) await syncPath(path, 'r+');
  }
  await syncDirectory(dir);
}

export async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  await syncPath(dir, 'r');
}

async function syncPath(path: string, flags: 'r' | 'r+'): Promise<void> {
  await guardWrite(path, undefined, async () => {
    const handle = await open(path, flags);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
}
