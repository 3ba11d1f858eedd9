/**
 * `torch.save` files (the zip format, weights-only subset) read and written without Python.
 *
 *   readTorchFile(path) → TorchValue          dicts, lists, strings, numbers, tensors as float32
 *   writeTorchFile(path, value)               a file `torch.load(path, weights_only=True)` reads
 *
 * Layout: `<archive>/data.pkl` (torch-pickle.ts), `<archive>/data/<key>` raw little-endian
 * storages, `<archive>/byteorder`, `<archive>/version`. A read tensor may be any strided view
 * into its storage (torch saves a slice such as `V[:, :r]` with the whole storage), so views are
 * gathered element by element after a bounds check. A write builds a hidden sibling and renames
 * it into place, so a failed write leaves no partial file at the target.
 */
import { basename } from 'node:path';
import { CheckpointError } from './checkpoint-error.ts';
import { decodeHalf, encodeHalf } from './half-float.ts';
import { readRegularFile } from './input-file.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { pickleTorch, type PickledStorage } from './torch-pickle-writer.ts';
import { unpickleTorch, type StorageRef, type TensorView } from './torch-pickle.ts';
import { STORAGE_TYPES, type TorchDType, type TorchTensor, type TorchValue } from './torch-value.ts';
import { buildStoredZip, ZipArchive, type ZipInput } from './zip-archive.ts';

export { isTorchTensor, type TorchDType, type TorchTensor, type TorchValue } from './torch-value.ts';

export async function readTorchFile(path: string): Promise<TorchValue> {
  const archive = ZipArchive.parse(path, await readRegularFile(path));
  const prefix = archivePrefix(archive);
  if (archive.has(`${prefix}byteorder`)) {
    const order = archive.read(`${prefix}byteorder`).toString('latin1').trim();
    if (order !== 'little') throw new CheckpointError('archive', path, `byteorder is "${order}"; only little-endian storages are read`);
  }
  // Tensors sharing a storage (slices of one matrix) decode it once.
  const storages = new Map<string, { readonly ref: StorageRef; readonly values: Float32Array }>();
  const storageValues = (ref: StorageRef): Float32Array => {
    const cached = storages.get(ref.key);
    if (cached !== undefined && (cached.ref.dtype !== ref.dtype || cached.ref.numel !== ref.numel)) {
      throw new CheckpointError('pickle', path, `storage data/${ref.key} is named as ${cached.ref.numel} ${cached.ref.dtype} and as ${ref.numel} ${ref.dtype} elements`);
    }
    if (cached !== undefined) return cached.values;
    const values = decodeStorage(path, ref, archive.read(`${prefix}data/${ref.key}`));
    storages.set(ref.key, { ref, values });
    return values;
  };
  return unpickleTorch(path, archive.read(`${prefix}data.pkl`), (view) => gatherView(path, view, storageValues(view.storage)));
}

/** The folder holding data.pkl: torch names it after the saved file, and it must be the only one. */
function archivePrefix(archive: ZipArchive): string {
  const pickles = archive.names().filter((name) => /^[^/]+\/data\.pkl$/.test(name));
  if (pickles.length !== 1) throw new CheckpointError('archive', archive.file, `is not a torch.save zip (${pickles.length} "<archive>/data.pkl" entries, expected 1)`);
  return (pickles[0] as string).slice(0, -'data.pkl'.length);
}

function decodeStorage(file: string, ref: StorageRef, bytes: Buffer): Float32Array {
  const expected = ref.numel * STORAGE_TYPES[ref.dtype].bytes;
  if (bytes.length !== expected) throw new CheckpointError('archive', file, `storage data/${ref.key} holds ${bytes.length} bytes; ${ref.numel} ${ref.dtype} elements need ${expected}`);
  const aligned = new Uint8Array(bytes).buffer; // a copy, so typed views start aligned
  switch (ref.dtype) {
    case 'F32': return new Float32Array(aligned);
    case 'F64': return Float32Array.from(new Float64Array(aligned));
    case 'BF16':
    case 'F16': return decodeHalf(ref.dtype, new Uint16Array(aligned));
  }
}

const MAX_TENSOR_ELEMENTS = 2 ** 31 - 1;

/** The view's elements in row-major order; an element outside the storage is refused. */
function gatherView(file: string, view: TensorView, storage: Float32Array): TorchTensor {
  const { shape, stride, offset } = view;
  const tensor = (values: Float32Array): TorchTensor => ({ kind: 'tensor', dtype: view.storage.dtype, shape, values });
  if (stride.length !== shape.length) throw new CheckpointError('pickle', file, `storage ${view.storage.key}: size has ${shape.length} dims, stride ${stride.length}`);
  const numel = shape.reduce((product, size) => product * size, 1);
  if (numel === 0) return tensor(new Float32Array(0));
  // A zero stride (an expanded view) may ask for more elements than its storage holds.
  if (numel > MAX_TENSOR_ELEMENTS) throw new CheckpointError('pickle', file, `storage ${view.storage.key}: a view of size [${shape.join(', ')}] has more than ${MAX_TENSOR_ELEMENTS} elements`);
  const last = shape.reduce((sum, size, dim) => sum + (size - 1) * (stride[dim] as number), offset);
  if (last >= storage.length) throw new CheckpointError('pickle', file, `storage ${view.storage.key}: a view of size [${shape.join(', ')}], stride [${stride.join(', ')}] at offset ${offset} reaches element ${last} of ${storage.length}`);
  const values = new Float32Array(numel);
  const index = new Array<number>(shape.length).fill(0);
  let source = offset;
  for (let i = 0; i < numel; i++) {
    values[i] = storage[source] as number;
    // Advance the row-major index like an odometer, moving `source` by the strides.
    for (let dim = shape.length - 1; dim >= 0; dim--) {
      source += stride[dim] as number;
      if (++(index[dim] as number) < (shape[dim] as number)) break;
      index[dim] = 0;
      source -= (shape[dim] as number) * (stride[dim] as number);
    }
  }
  return tensor(values);
}

export async function writeTorchFile(path: string, value: TorchValue): Promise<void> {
  const { pickle, storages } = pickleTorch(path, value);
  const prefix = `${basename(path).replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9_-]/g, '_') || 'archive'}/`;
  const entries: ZipInput[] = [
    { name: `${prefix}data.pkl`, data: pickle },
    { name: `${prefix}byteorder`, data: Buffer.from('little') },
    ...storages.map((storage) => ({ name: `${prefix}data/${storage.key}`, data: encodeStorage(storage) })),
    { name: `${prefix}version`, data: Buffer.from('3\n') },
  ];
  await writeAtomically(path, buildStoredZip(path, entries));
}

function encodeStorage({ tensor }: PickledStorage): Uint8Array {
  const typed = encodeAs(tensor.dtype, tensor.values);
  return new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
}

function encodeAs(dtype: TorchDType, values: Float32Array): Float32Array | Float64Array | Uint16Array {
  switch (dtype) {
    case 'F32': return values;
    case 'F64': return Float64Array.from(values);
    case 'BF16':
    case 'F16': return encodeHalf(dtype, values);
  }
}

async function writeAtomically(path: string, chunks: readonly Buffer[]): Promise<void> {
  try {
    await writeFileAtomic(path, chunks);
  } catch (error) {
    throw new CheckpointError('write', path, `cannot be written (${error instanceof Error ? error.message : String(error)})`);
  }
}
