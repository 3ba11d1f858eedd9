/**
 * The engine's own JSON files (cache manifests, stage markers, progress files, JSONL caches) read
 * through a zod schema, never a cast: whatever is wrong — not JSON, the wrong shape — is a
 * CheckpointError('metadata') naming the file (and the line of a JSONL file) and what it should be.
 *
 *   parseJsonText(file, text, schema, what) → T            throws naming `file`
 *   checkJson(file, json, schema, what) → T                the same for a value already parsed
 *   readJsonFile(file, schema, what) → T | undefined       undefined when the file does not exist
 */
import { z } from 'zod';
import { CheckpointError } from './checkpoint-error.ts';
import { readTextFile } from './input-file.ts';

export function parseJsonText<T>(file: string, text: string, schema: z.ZodType<T>, what: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CheckpointError('metadata', file, `is not ${what}: not valid JSON (${(error as Error).message})`);
  }
  return checkJson(file, json, schema, what);
}

export function checkJson<T>(file: string, json: unknown, schema: z.ZodType<T>, what: string): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new CheckpointError('metadata', file, `is not ${what}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export async function readJsonFile<T>(file: string, schema: z.ZodType<T>, what: string): Promise<T | undefined> {
  let text: string;
  try {
    // A regular file, strict UTF-8: a FIFO left where a cache file was must not hang the engine.
    text = await readTextFile(file);
  } catch (error) {
    if (error instanceof CheckpointError && error.code === 'not-found') return undefined;
    throw error;
  }
  return parseJsonText(file, text, schema, what);
}
