/**
 * Mutations of a safetensors shard for the checkpoint fuzz test: the length prefix, the header's
 * bytes (in place, so the prefix no longer fits, and re-laid-out with a matching prefix), its
 * entries (dtype, shape, offsets, names, metadata) and the data area's length.
 */
import type { SeededRandom } from '../../protocol/seeded-random.ts';
import { INVALID_UTF8, mutationsOf, randomByteEdits, spliceBytes, type FileMutation } from './file-mutation.ts';

type Entry = [string, unknown];

interface Shard {
  readonly prefix: number;
  readonly headerText: string;
  readonly entries: readonly Entry[];
  readonly data: Buffer;
}

function parseShard(bytes: Buffer): Shard {
  const prefix = Number(bytes.readBigUInt64LE(0));
  const headerText = bytes.subarray(8, 8 + prefix).toString('utf8');
  const entries = Object.entries(JSON.parse(headerText) as Record<string, unknown>);
  return { prefix, headerText, entries, data: bytes.subarray(8 + prefix) };
}

/** Entries written in order, repeats and "__proto__" included, space-padded like HF's writer. */
function layOut(entries: readonly Entry[], data: Buffer, raw?: Buffer): Buffer {
  const json = raw ?? Buffer.from(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`);
  const padded = Buffer.alloc(Math.ceil((json.length + 8) / 8) * 8 - 8, 0x20);
  json.copy(padded);
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(padded.length));
  return Buffer.concat([prefix, padded, data]);
}

function withPrefix(bytes: Buffer, value: bigint): Buffer {
  const out = Buffer.from(bytes);
  out.writeBigUInt64LE(value);
  return out;
}

interface TensorEntry { dtype: unknown; shape: unknown; data_offsets: unknown }
type Make = ReturnType<typeof mutationsOf>;

export function safetensorsMutations(file: string, bytes: Buffer, random: SeededRandom): FileMutation[] {
  const shard = parseShard(bytes);
  const make = mutationsOf(file);
  return [
    ...prefixMutations(make, bytes, shard, random),
    ...headerByteMutations(make, bytes, shard, random),
    ...entryMutations(make, shard, random),
    ...dataMutations(make, bytes, shard),
  ];
}

/** Lengths into the padding (when there is one), into the JSON, into the data, past the end, absurd. */
function prefixMutations(make: Make, bytes: Buffer, shard: Shard, random: SeededRandom): FileMutation[] {
  const json = shard.headerText.trimEnd().length;
  const prefixes = new Set([shard.prefix - 1, json, json - 1, shard.prefix + 1, shard.prefix + 8, 0, 1, 2, 8,
    bytes.length - 8, bytes.length - 7, 2 ** 32 + shard.prefix, 100_000_001, random.int(0, bytes.length)]);
  prefixes.delete(shard.prefix);
  return [
    ...[...prefixes].map((n) => make(`length prefix ${n} (was ${shard.prefix})`, () => withPrefix(bytes, BigInt(n)))),
    make('length prefix 2^63', () => withPrefix(bytes, 2n ** 63n)),
  ];
}

/** Random byte edits (in place, and re-laid-out with a fitting prefix), invalid UTF-8, BOM, padding. */
function headerByteMutations(make: Make, bytes: Buffer, shard: Shard, random: SeededRandom): FileMutation[] {
  const json = shard.headerText.trimEnd();
  const padding = shard.prefix - json.length;
  const nameEnd = shard.headerText.indexOf('"', 2) - 1;
  return [
    ...randomByteEdits(random, bytes, 12, 8, 8 + json.length).map((e) => make(`header ${e.what} (prefix kept)`, e.apply)),
    ...randomByteEdits(random, Buffer.from(json), 12).map((e) => make(`header JSON ${e.what} (re-laid-out)`, () => layOut([], shard.data, e.apply()))),
    ...INVALID_UTF8.map((seq) => make(`invalid UTF-8 ${seq.map((b) => b.toString(16)).join(' ')} in a tensor name`, () =>
      layOut([], shard.data, Buffer.concat([Buffer.from(json.slice(0, nameEnd)), Buffer.from(seq), Buffer.from(json.slice(nameEnd))])))),
    make('byte-order mark before the header', () => layOut([], shard.data, Buffer.from(`\ufeff${json}`))),
    ...(padding === 0 ? [] : [['newlines', 0x0a], ['NUL bytes', 0]].map(([what, byte]) =>
      make(`header padding as ${what}`, () => Buffer.concat([bytes.subarray(0, 8 + json.length), Buffer.alloc(padding, byte as number), shard.data])))),
  ];
}

/** One random tensor's dtype, shape, offsets or whole entry; renames, repeats, metadata. */
function entryMutations(make: Make, shard: Shard, random: SeededRandom): FileMutation[] {
  const tensorIndex = () => random.pick(shard.entries.map((e, i) => [e, i] as const).filter(([[name]]) => name !== '__metadata__'))[1];
  /** Replaces one random tensor's entry by edit(entry); `undefined` removes it. */
  const editEntry = (what: string, edit: (entry: TensorEntry) => unknown, blame: FileMutation['blame'] = 'file') => {
    const i = tensorIndex();
    const [name, entry] = shard.entries[i] as Entry;
    return make(`${what} of "${name}"`, () => {
      const value = edit({ ...(entry as TensorEntry) });
      const entries = value === undefined ? shard.entries.filter((_, j) => j !== i) : shard.entries.map((e, j): Entry => (j === i ? [name, value] : e));
      return layOut(entries, shard.data);
    }, blame);
  };
  const renameEntry = (to: string) => {
    const i = tensorIndex();
    const [name, entry] = shard.entries[i] as Entry;
    return make(`rename "${name}" to "${to}"`, () => layOut(shard.entries.map((e, j): Entry => (j === i ? [to, entry] : e)), shard.data), 'folder');
  };
  const shapeOf = (e: TensorEntry) => e.shape as number[];
  const offsetsOf = (e: TensorEntry) => e.data_offsets as [number, number];
  const end = shard.data.length;
  return [
    // Same-size dtypes and shapes make a well-formed file the runtime must refuse against config.json.
    ...['F16', 'BF16', 'F64', 'I32', 'I64', 'U8', 'BOOL', 'F8_E4M3', 'f32', 'F12', 32, null].map((dtype) =>
      editEntry(`dtype ${JSON.stringify(dtype)}`, (e) => ({ ...e, dtype }), 'folder')),
    editEntry('no dtype', ({ shape, data_offsets }) => ({ shape, data_offsets })),
    editEntry('shape with first dimension +1', (e) => ({ ...e, shape: shapeOf(e).map((d, k) => (k === 0 ? d + 1 : d)) })),
    editEntry('shape with first dimension -1', (e) => ({ ...e, shape: shapeOf(e).map((d, k) => (k === 0 ? d - 1 : d)) })),
    editEntry('shape with a trailing 1', (e) => ({ ...e, shape: [...shapeOf(e), 1] }), 'folder'),
    editEntry('shape reversed', (e) => ({ ...e, shape: [...shapeOf(e)].reverse() }), 'folder'),
    editEntry('shape flattened', (e) => ({ ...e, shape: [shapeOf(e).reduce((a, b) => a * b, 1)] }), 'folder'),
    ...[[], [-1], [1.5], ['8'], [2 ** 53], 'x', null, [2 ** 26, 2 ** 26, 2 ** 26]].map((shape) => editEntry(`shape ${JSON.stringify(shape)}`, (e) => ({ ...e, shape }))),
    editEntry('no shape', ({ dtype, data_offsets }) => ({ dtype, data_offsets })),
    ...[-4, 4, 1, -1].map((k) => editEntry(`data_offsets shifted by ${k}`, (e) => ({ ...e, data_offsets: offsetsOf(e).map((o) => o + k) }))),
    editEntry('data_offsets end - 4', (e) => ({ ...e, data_offsets: [offsetsOf(e)[0], offsetsOf(e)[1] - 4] })),
    editEntry('data_offsets reversed', (e) => ({ ...e, data_offsets: [...offsetsOf(e)].reverse() })),
    ...[[0, 0], [-4, 0], [0.5, 4.5], ['0', '4'], [0, 4, 8], null, [0, 2 ** 53]].map((o) => editEntry(`data_offsets ${JSON.stringify(o)}`, (e) => ({ ...e, data_offsets: o }))),
    ...[5, [], 'x', null].map((v) => editEntry(`entry ${JSON.stringify(v)}`, () => v)),
    editEntry('entry removed (its bytes stay)', () => undefined),
    renameEntry('__proto__'), renameEntry('constructor'), renameEntry(`${shard.entries[1]?.[0] ?? 'x'}.renamed`),
    make('a tensor entry twice', () => layOut([...shard.entries, shard.entries[shard.entries.length - 1] as Entry], shard.data)),
    make('an empty "__proto__" tensor added', () => layOut([...shard.entries, ['__proto__', { dtype: 'F32', shape: [0], data_offsets: [end, end] }]], shard.data), 'folder'),
    ...[{ format: 5 }, 'pt', [], { format: null }].map((m) =>
      make(`__metadata__ ${JSON.stringify(m)}`, () => layOut([['__metadata__', m], ...shard.entries.filter(([n]) => n !== '__metadata__')], shard.data))),
  ];
}

/** The data area cut or extended, and a file that stops early. */
function dataMutations(make: Make, bytes: Buffer, shard: Shard): FileMutation[] {
  return [
    ...[1, 7, 4096, shard.data.length].map((k) => make(`data truncated by ${k} bytes`, () => bytes.subarray(0, bytes.length - k))),
    ...[1, 8, 4096].map((k) => make(`${k} bytes appended`, () => Buffer.concat([bytes, Buffer.alloc(k, 0x41)]))),
    make('empty file', () => Buffer.alloc(0)),
    make('only the length prefix', () => bytes.subarray(0, 8)),
    make('header cut in half', () => bytes.subarray(0, 8 + Math.floor(shard.headerText.trimEnd().length / 2))),
    make('data byte 0 dropped (tensors shift)', () => spliceBytes(bytes, 8 + shard.prefix, 1)),
  ];
}
