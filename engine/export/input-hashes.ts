/**
 * SHA-256 of every file an export reads, for the recipe, and the check that a recipe's inputs
 * are the files at hand.
 *
 *   checkpointFiles(checkpoint) → file names the checkpoint is made of (config, index, shards, side files)
 *   hashFiles(dir, files, progress) → { file: sha256 }
 *   assertSameHashes(dir, expected, actual, what)   CheckpointError naming the first differing file
 *
 * Hashing is streamed (shards exceed RAM) and reports bytes as it goes: at 60 GB it is minutes.
 * It runs on a worker thread, so an export can edit and write on the main thread meanwhile
 * (export-checkpoint.ts); cancelling terminates the worker.
 */
import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CheckpointError } from '../io/checkpoint-error.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { INDEX_FILE_NAME } from '../io/shard-plan.ts';

export interface HashProgress {
  readonly file: string;
  readonly bytesDone: number;
  readonly bytesTotal: number;
}

export async function checkpointFiles(checkpoint: Checkpoint): Promise<string[]> {
  const hasIndex = await access(join(checkpoint.dir, INDEX_FILE_NAME)).then(() => true, () => false);
  return ['config.json', ...(hasIndex ? [INDEX_FILE_NAME] : []), ...checkpoint.shardFiles, ...checkpoint.sideFiles];
}

export async function hashFiles(
  dir: string,
  files: readonly string[],
  options: { signal?: AbortSignal; onProgress?: (p: HashProgress) => void } = {},
): Promise<Record<string, string>> {
  const sizes = await Promise.all(files.map(async (f) => {
    const stats = await stat(join(dir, f)).catch(() => { throw new CheckpointError('not-found', join(dir, f), 'input file not found'); });
    // Hashing reads to the end: a FIFO would block it forever, a folder fail without a name.
    if (!stats.isFile()) throw new CheckpointError('not-a-file', join(dir, f), 'is not a regular file');
    return stats.size;
  }));
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
  let bytesDone = 0;
  const digests = await hashOnWorker(files.map((f) => join(dir, f)), options.signal, (i) => {
    bytesDone += sizes[i] as number;
    options.onProgress?.({ file: files[i] as string, bytesDone, bytesTotal });
  });
  return Object.fromEntries(files.map((file, i) => [file, digests[i] as string]));
}

/**
 * Plain JavaScript, run with `eval`: needs no TypeScript loader in the worker. Stops at the first
 * file it cannot read. Blocking reads are this thread's only work; every file goes through one
 * 4 MiB buffer (a read stream's fresh chunk per read was garbage and fresh pages, 1.3 GB of them
 * for a 0.6B pair). terminate() stops the loop between reads.
 */
const HASH_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { closeSync, openSync, readSync } = require('node:fs');
const buffer = Buffer.allocUnsafeSlow(1 << 22);
for (const path of workerData) {
  const hash = createHash('sha256');
  let fd;
  try {
    fd = openSync(path, 'r');
    for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0;) hash.update(buffer.subarray(0, n));
  } catch (error) {
    parentPort.postMessage({ code: error.code, message: error.message });
    break;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  parentPort.postMessage({ sha256: hash.digest('hex') });
}
`;

type WorkerReply = { readonly sha256: string } | { readonly code?: string; readonly message: string };

/** Hex SHA-256 of each file, in order, streamed on a worker thread; `onFile(i)` as each one ends. */
function hashOnWorker(paths: readonly string[], signal: AbortSignal | undefined, onFile: (index: number) => void): Promise<string[]> {
  const digests: string[] = [];
  if (paths.length === 0) return Promise.resolve(digests);
  return new Promise((resolve, reject) => {
    const current = () => paths[digests.length] as string;
    if (signal?.aborted === true) {
      reject(new CheckpointError('io', current(), 'hashing cancelled'));
      return;
    }
    const worker = new Worker(HASH_WORKER, { eval: true, workerData: paths });
    let settled = false;
    const finish = (error?: CheckpointError) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', cancel);
      void worker.terminate();
      if (error === undefined) resolve(digests);
      else reject(error);
    };
    const cancel = () => finish(new CheckpointError('io', current(), 'hashing cancelled'));
    signal?.addEventListener('abort', cancel, { once: true });
    worker.on('message', (reply: WorkerReply) => {
      if ('sha256' in reply) {
        digests.push(reply.sha256);
        onFile(digests.length - 1);
        if (digests.length === paths.length) finish();
      } else {
        finish(reply.code === 'ENOENT' ? new CheckpointError('not-found', current(), 'file not found') : new CheckpointError('io', current(), `could not be read for hashing (${reply.message})`));
      }
    });
    worker.on('error', (error) => finish(new CheckpointError('io', current(), `could not be hashed (${error.message})`)));
    worker.on('exit', () => finish(new CheckpointError('io', current(), 'hashing stopped before the file was read')));
  });
}

export function assertSameHashes(dir: string, expected: Readonly<Record<string, string>>, actual: Readonly<Record<string, string>>, what: string): void {
  for (const file of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    const [want, have] = [expected[file], actual[file]];
    if (want === have) continue;
    const detail = want === undefined ? `is not in the recipe's ${what} files`
      : have === undefined ? `is listed in the recipe's ${what} files but absent here`
        : `SHA-256 ${have} differs from the recipe's ${want} (${what})`;
    throw new CheckpointError('metadata', join(dir, file), detail);
  }
}
