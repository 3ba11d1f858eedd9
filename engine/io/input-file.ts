/**
 * Opening and reading a checkpoint's input files so that nothing about them can hang, crash or
 * silently alter the engine.
 *
 *   openRegularFile(path) → FileHandle      refuses folders, FIFOs, sockets and devices
 *   readRegularFile(path, limit?) → Buffer
 *   readTextFile(path) → string              a regular file, at most MAX_TEXT_FILE_BYTES, strict UTF-8
 *   readJsonObject(path, code) → object      readTextFile + JSON.parse, top level must be an object
 *   decodeUtf8(path, bytes, what) → string   strict-utf8.ts, a leading BOM kept (so JSON refuses it)
 *
 * The file is opened non-blocking and its type checked on the open handle (fstat), not by a
 * stat before the open: opening a FIFO for reading otherwise blocks until a writer appears (a
 * hang that no timeout can end, since it holds a libuv thread), and the checked file is the one
 * that is read. Every failure is a CheckpointError naming the file.
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { CheckpointError, type CheckpointErrorCode } from './checkpoint-error.ts';
import { isJsonObject } from './json-object.ts';
import { decodeStrictUtf8 } from './strict-utf8.ts';

/** Config, index, tokenizer and the engine's own JSON files are metadata: a real tokenizer.json is ~10 MB. */
export const MAX_TEXT_FILE_BYTES = 256 * 1024 * 1024;

// O_NONBLOCK is POSIX-only (undefined on Windows, where a FIFO cannot appear under a file name).
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export async function openRegularFile(path: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    throw readError(path, error);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      const kind = stats.isDirectory() ? 'a folder' : stats.isFIFO() ? 'a FIFO (named pipe)' : stats.isSocket() ? 'a socket' : 'a device';
      throw new CheckpointError('not-a-file', path, `is ${kind}, not a regular file`);
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error instanceof CheckpointError ? error : readError(path, error);
  }
}

/** The whole of a regular file; with a limit, a larger one is refused before it is read. */
export async function readRegularFile(path: string, limit?: { readonly bytes: number; readonly of: string }): Promise<Buffer> {
  const handle = await openRegularFile(path);
  try {
    const { size } = await handle.stat();
    if (limit !== undefined && size > limit.bytes) throw new CheckpointError('io', path, `is ${size} bytes; ${limit.of} are at most ${limit.bytes}`);
    return await handle.readFile().catch((error: unknown) => { throw readError(path, error); });
  } finally {
    await handle.close();
  }
}

export async function readTextFile(path: string): Promise<string> {
  return decodeUtf8(path, await readRegularFile(path, { bytes: MAX_TEXT_FILE_BYTES, of: 'text and JSON files' }), 'file');
}

export async function readJsonObject(path: string, code: CheckpointErrorCode): Promise<Record<string, unknown>> {
  const text = await readTextFile(path);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // JSON.parse's own message quotes the invisible U+FEFF as ' '.
    const why = text.startsWith('\uFEFF') ? 'it starts with a UTF-8 byte-order mark, which JSON does not allow; save it without one' : (error as Error).message;
    throw new CheckpointError(code, path, `is not valid JSON (${why})`);
  }
  if (!isJsonObject(json)) throw new CheckpointError(code, path, 'is not a JSON object');
  return json;
}

export function decodeUtf8(path: string, bytes: Uint8Array, what: string): string {
  return decodeStrictUtf8(bytes, 'keep', (at) => new CheckpointError('encoding', path, `${what} is not valid UTF-8 (byte ${at.offset}: 0x${hex(at.byte)})`));
}

const hex = (byte: number): string => byte.toString(16).padStart(2, '0');

function readError(path: string, error: unknown): CheckpointError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new CheckpointError('not-found', path, 'file not found');
  if (code === 'EACCES' || code === 'EPERM') return new CheckpointError('io', path, 'permission denied while reading');
  if (code === 'EISDIR') return new CheckpointError('not-a-file', path, 'is a folder, not a regular file');
  return new CheckpointError('io', path, `read failed: ${(error as Error).message}`);
}
