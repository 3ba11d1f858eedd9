/**
 * Every mutation the checkpoint fuzz test runs on a sharded checkpoint folder: each shard's
 * header and data (safetensors-mutations.ts), config.json, the index and the tokenizer files
 * (json-file-mutations.ts), and, on POSIX, a folder, FIFO, device or nothing in place of a file.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SeededRandom } from '../../protocol/seeded-random.ts';
import { mutationsOf, type FileMutation, type SpecialFile } from './file-mutation.ts';
import { configMutations, indexMutations, jsonSyntaxMutations, tokenizerConfigMutations, tokenizerMutations } from './json-file-mutations.ts';
import { safetensorsMutations } from './safetensors-mutations.ts';

const SPECIALS: readonly SpecialFile[] = ['folder', 'fifo', 'device', 'missing'];

export async function checkpointFuzzMutations(dir: string, random: SeededRandom, options: { specialFiles: boolean }): Promise<FileMutation[]> {
  const files = (await readdir(dir)).sort();
  const bytes = async (file: string) => readFile(join(dir, file));
  const json = async (file: string) => JSON.parse((await bytes(file)).toString('utf8')) as Record<string, unknown>;
  const config = await json('config.json');
  const mutations: FileMutation[] = [];
  for (const file of files) {
    const content = await bytes(file);
    if (file.endsWith('.safetensors')) mutations.push(...safetensorsMutations(file, content, random));
    else if (file.endsWith('.json')) mutations.push(...jsonSyntaxMutations(file, content, random));
    if (options.specialFiles && file !== 'generation_config.json') {
      mutations.push(...SPECIALS.map((special) => mutationsOf(file)(`${special === 'missing' ? 'removed' : `a ${special} in its place`}`, () => special)));
    }
  }
  mutations.push(...configMutations('config.json', config));
  if (files.includes('model.safetensors.index.json')) {
    mutations.push(...indexMutations('model.safetensors.index.json', await json('model.safetensors.index.json') as { weight_map: Record<string, string> }, random));
  }
  if (files.includes('tokenizer.json')) mutations.push(...tokenizerMutations('tokenizer.json', await json('tokenizer.json'), config['vocab_size'] as number, random));
  if (files.includes('tokenizer_config.json')) mutations.push(...tokenizerConfigMutations('tokenizer_config.json', await json('tokenizer_config.json')));
  // A random pick can repeat an edit; each distinct mutation runs once.
  return [...new Map(mutations.map((m) => [m.id, m])).values()];
}
