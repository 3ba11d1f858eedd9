/**
 * Text files of engine/calibration (JSONL chats, tokenizer files, chat templates) decoded as
 * strict UTF-8.
 *
 *   readUtf8File(path) → text      decodeUtf8(bytes, file) → text
 *
 * Node's 'utf8' decoding replaces invalid bytes with U+FFFD: calibration text would then differ
 * from the file without anyone noticing (different tokens, different gradients). Here an invalid
 * byte is a CalibrationError naming `file:line` and the byte's column. A leading byte-order mark
 * is dropped, as editors on Windows write one.
 */
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readRegularFile } from '../io/input-file.ts';
import { decodeStrictUtf8 } from '../io/strict-utf8.ts';
import { CalibrationError } from './calibration-error.ts';

export async function readUtf8File(path: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    // A regular file only: readFile on a FIFO named tokenizer.json or data.jsonl blocks forever.
    bytes = await readRegularFile(path);
  } catch (error) {
    if (!(error instanceof CheckpointError)) throw error;
    throw new CalibrationError(error.code === 'not-found' ? 'not-found' : 'io', path, `cannot be read (${error.detail})`);
  }
  return decodeUtf8(bytes, path);
}

export function decodeUtf8(bytes: Uint8Array, file: string): string {
  return decodeStrictUtf8(bytes, 'drop', (at) =>
    new CalibrationError('encoding', `${file}:${at.line}`, `is not valid UTF-8 (invalid byte 0x${at.byte.toString(16).padStart(2, '0')} at byte ${at.column} of the line)`),
  );
}
