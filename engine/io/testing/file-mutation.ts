/**
 * One mutation of one file of a checkpoint folder, for the checkpoint fuzz test: what the file
 * becomes (new bytes, or a folder / FIFO / device / nothing in its place) and what the error,
 * if the mutation is refused, must name.
 */
import type { SeededRandom } from '../../protocol/seeded-random.ts';

export type SpecialFile = 'folder' | 'fifo' | 'device' | 'missing';

export interface FileMutation {
  /** Readable and unique: `file: what was done`, so a failure report says how to reproduce it. */
  readonly id: string;
  /** The file name inside the checkpoint folder. */
  readonly file: string;
  readonly content: () => Buffer | SpecialFile;
  /**
   * 'file': an error must give the mutated file's path (or the folder and the file's name).
   * 'folder': the checkpoint folder is enough — the file is well-formed but disagrees with the
   * rest of the checkpoint (a shape config.json does not imply, a tensor the index lacks), and
   * the runtime reports the tensor it could not use.
   */
  readonly blame: 'file' | 'folder';
}

/** Builds mutations of one file with a shared id prefix and default blame. */
export function mutationsOf(file: string, blame: FileMutation['blame'] = 'file') {
  return (what: string, content: () => Buffer | SpecialFile, override?: FileMutation['blame']): FileMutation => ({
    id: `${file}: ${what}`,
    file,
    content,
    blame: override ?? blame,
  });
}

/** Bytes that are not UTF-8: a stray byte, a lone continuation, an overlong '/', a surrogate, a cut sequence. */
export const INVALID_UTF8: readonly (readonly number[])[] = [[0xff], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]];

export function spliceBytes(bytes: Buffer, at: number, remove: number, insert: readonly number[] = []): Buffer {
  return Buffer.concat([bytes.subarray(0, at), Buffer.from(insert), bytes.subarray(at + remove)]);
}

/** Random in-place replacements, deletions and insertions over bytes[from, to). */
export function randomByteEdits(random: SeededRandom, bytes: Buffer, count: number, from = 0, to = bytes.length) {
  return Array.from({ length: count }, (_, i) => {
    const at = random.int(from, to - 1);
    const value = random.int(0, 255);
    const kind = (['replace', 'delete', 'insert'] as const)[i % 3] as 'replace' | 'delete' | 'insert';
    const apply = () => (kind === 'replace' ? spliceBytes(bytes, at, 1, [value]) : kind === 'delete' ? spliceBytes(bytes, at, 1) : spliceBytes(bytes, at, 0, [value]));
    return { what: `${kind} byte ${at}${kind === 'delete' ? '' : ` = 0x${value.toString(16)}`}`, apply };
  });
}
