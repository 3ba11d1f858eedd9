/**
 * The GPT-2 byte-level alphabet used by byte-level BPE tokenizers (GPT-2, Llama 3, Qwen):
 * every byte 0..255 is written as one printable Unicode character so that merges work on strings.
 *
 * API: `BYTE_TO_CHAR[b]`, `byteOfChar(ch)`, `toByteLevel(text)` (UTF-8 bytes → alphabet string),
 * `fromByteLevel(token)` (alphabet string → bytes; undefined when a character is not in the alphabet).
 * We need the table ourselves because @huggingface/tokenizers gives no offsets: mapping each token
 * back to its exact bytes is how offsets and pattern positions are rebuilt.
 */

function buildTable(): string[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const table = new Array<string>(256);
  for (const b of printable) table[b] = String.fromCodePoint(b);
  // Bytes that are not printable (controls, space, soft hyphen) are shifted past 255, in byte order.
  let next = 256;
  for (let b = 0; b < 256; b++) if (table[b] === undefined) table[b] = String.fromCodePoint(next++);
  return table;
}

export const BYTE_TO_CHAR: readonly string[] = buildTable();

/** The 256 alphabet characters in the order GPT-2-style vocabularies give them ids 0..255. */
export const BYTE_LEVEL_ALPHABET: readonly string[] = (() => {
  const printableFirst = [...BYTE_TO_CHAR.entries()].sort(
    ([, a], [, b]) => (a.codePointAt(0) ?? 0) - (b.codePointAt(0) ?? 0),
  );
  return printableFirst.map(([, ch]) => ch);
})();

const CHAR_TO_BYTE = new Map<string, number>(BYTE_TO_CHAR.map((ch, b) => [ch, b]));

export function byteOfChar(ch: string): number | undefined {
  return CHAR_TO_BYTE.get(ch);
}

const encoder = new TextEncoder();

export function toByteLevel(text: string): string {
  let out = '';
  for (const b of encoder.encode(text)) out += BYTE_TO_CHAR[b];
  return out;
}

export function fromByteLevel(token: string): Uint8Array | undefined {
  const bytes: number[] = [];
  for (const ch of token) {
    const b = CHAR_TO_BYTE.get(ch);
    if (b === undefined) return undefined;
    bytes.push(b);
  }
  return Uint8Array.from(bytes);
}
