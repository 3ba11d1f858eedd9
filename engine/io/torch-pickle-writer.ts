/**
 * Writes a TorchValue as the protocol-2 pickle torch.save produces, which
 * `torch.load(weights_only=True)` accepts: each tensor is
 * `_rebuild_tensor_v2(storage, 0, shape, contiguous strides, False, OrderedDict())` over a
 * storage of its own, persisted as ('storage', torch.<Type>Storage, key, 'cpu', numel).
 * Integers (JS numbers without a fraction) are written as Python ints, others as floats
 * (BINFLOAT: torch's weights-only loader reads it from torch 2.0 on, torch 1.13's does not).
 */
import { CheckpointError } from './checkpoint-error.ts';
import { isTorchTensor, STORAGE_TYPES, type TorchTensor, type TorchValue } from './torch-value.ts';

/** A tensor the archive must hold as `data/<key>`. */
export interface PickledStorage {
  readonly key: string;
  readonly tensor: TorchTensor;
  /** The value's path in the tree, for error messages. */
  readonly where: string;
}

export function pickleTorch(file: string, value: TorchValue): { readonly pickle: Buffer; readonly storages: PickledStorage[] } {
  const writer = new PickleWriter(file);
  writer.bytes(0x80, 2); // PROTO 2
  writer.value(value, '');
  writer.bytes(0x2e); // STOP
  return { pickle: Buffer.concat(writer.chunks), storages: writer.storages };
}

class PickleWriter {
  readonly chunks: Buffer[] = [];
  readonly storages: PickledStorage[] = [];

  constructor(private readonly file: string) {}

  value(value: TorchValue, where: string): void {
    if (value === null) this.bytes(0x4e); // NONE
    else if (typeof value === 'boolean') this.bytes(value ? 0x88 : 0x89); // NEWTRUE / NEWFALSE
    else if (typeof value === 'string') this.text(value);
    else if (typeof value === 'number') this.number(value, where);
    else if (value instanceof Map) this.dict(value, where);
    else if (Array.isArray(value)) this.list(value, where);
    else if (isTorchTensor(value)) this.tensor(value, where);
    else throw new CheckpointError('write', this.file, `${where || 'the value'} is not a dict, list, string, number, boolean, null or tensor`);
  }

  private dict(map: ReadonlyMap<string, TorchValue>, where: string): void {
    this.bytes(0x7d); // EMPTY_DICT
    if (map.size === 0) return;
    this.bytes(0x28); // MARK
    for (const [key, item] of map) {
      if (typeof key !== 'string') throw new CheckpointError('write', this.file, `${where || 'a dict'} has a key that is not a string`);
      this.text(key);
      this.value(item, `${where}/${key}`);
    }
    this.bytes(0x75); // SETITEMS
  }

  private list(items: readonly TorchValue[], where: string): void {
    this.bytes(0x5d); // EMPTY_LIST
    if (items.length === 0) return;
    this.bytes(0x28); // MARK
    items.forEach((item, i) => this.value(item, `${where}/${i}`));
    this.bytes(0x65); // APPENDS
  }

  private tensor(tensor: TorchTensor, where: string): void {
    const numel = tensor.shape.reduce((product, size) => product * size, 1);
    if (!tensor.shape.every((size) => Number.isSafeInteger(size) && size >= 0) || numel !== tensor.values.length) {
      throw new CheckpointError('write', this.file, `shape [${tensor.shape.join(', ')}] does not hold ${tensor.values.length} values`, where);
    }
    if (!(tensor.dtype in STORAGE_TYPES)) throw new CheckpointError('write', this.file, `dtype ${String(tensor.dtype)} cannot be written`, where);
    const key = String(this.storages.length);
    this.storages.push({ key, tensor, where });
    this.global('torch._utils', '_rebuild_tensor_v2');
    this.bytes(0x28); // MARK: the argument tuple
    this.bytes(0x28); // MARK: the persistent id tuple
    this.text('storage');
    this.global('torch', STORAGE_TYPES[tensor.dtype].storage);
    this.text(key);
    this.text('cpu');
    this.int(numel);
    this.bytes(0x74, 0x51); // TUPLE, BINPERSID
    this.int(0); // storage offset
    this.intTuple(tensor.shape);
    this.intTuple(contiguousStrides(tensor.shape));
    this.bytes(0x89); // requires_grad = False
    this.global('collections', 'OrderedDict');
    this.bytes(0x29, 0x52); // EMPTY_TUPLE, REDUCE: backward_hooks = OrderedDict()
    this.bytes(0x74, 0x52); // TUPLE, REDUCE
  }

  private intTuple(values: readonly number[]): void {
    this.bytes(0x28); // MARK
    for (const value of values) this.int(value);
    this.bytes(0x74); // TUPLE
  }

  private number(value: number, where: string): void {
    if (Number.isSafeInteger(value)) this.int(value);
    else if (Number.isInteger(value)) throw new CheckpointError('write', this.file, `${where || 'a number'} ${value} is an integer beyond 2^53`);
    else {
      const float = Buffer.alloc(9);
      float[0] = 0x47; // BINFLOAT, big-endian
      float.writeDoubleBE(value, 1);
      this.chunks.push(float);
    }
  }

  private int(value: number): void {
    if (value >= -0x80000000 && value <= 0x7fffffff) {
      const int = Buffer.alloc(5);
      int[0] = 0x4a; // BININT
      int.writeInt32LE(value, 1);
      this.chunks.push(int);
      return;
    }
    const long = Buffer.alloc(10);
    long[0] = 0x8a; // LONG1 with 8 bytes of two's complement
    long[1] = 8;
    long.writeBigInt64LE(BigInt(value), 2);
    this.chunks.push(long);
  }

  private text(value: string): void {
    const utf8 = Buffer.from(value, 'utf8');
    const header = Buffer.alloc(5);
    header[0] = 0x58; // BINUNICODE
    header.writeUInt32LE(utf8.length, 1);
    this.chunks.push(header, utf8);
  }

  private global(module: string, name: string): void {
    this.bytes(0x63); // GLOBAL
    this.chunks.push(Buffer.from(`${module}\n${name}\n`, 'latin1'));
  }

  bytes(...values: number[]): void {
    this.chunks.push(Buffer.from(values));
  }
}

function contiguousStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let stride = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = stride;
    stride *= Math.max(1, shape[i] as number);
  }
  return strides;
}
