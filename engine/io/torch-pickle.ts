/**
 * A restricted reader of the pickle in a `torch.save` file (`data.pkl`). It interprets the opcodes
 * torch.save emits for dicts, lists, tuples, strings, numbers and tensors, and nothing else: no
 * code is ever imported or called. GLOBAL resolves only the names below, REDUCE applies only the
 * tensor rebuild and an empty OrderedDict, and any other opcode or name is a CheckpointError
 * naming the file, the opcode or global and its byte offset.
 */
import { CheckpointError } from './checkpoint-error.ts';
import { STORAGE_TYPES, type TorchDType, type TorchTensor, type TorchValue } from './torch-value.ts';

/** Where a tensor's elements live: `data/<key>` in the archive, `numel` elements of `dtype`. */
export interface StorageRef {
  readonly dtype: TorchDType;
  readonly key: string;
  readonly numel: number;
}

export interface TensorView {
  readonly storage: StorageRef;
  readonly offset: number;
  readonly shape: readonly number[];
  readonly stride: readonly number[];
}

/** Turns a tensor view into values; the archive reader supplies it. */
export type TensorBuilder = (view: TensorView) => TorchTensor;

/** MARK's place on the stack; never a value. */
const MARK: unique symbol = Symbol('MARK');
type Mark = typeof MARK;
class PickleTuple {
  constructor(readonly items: readonly StackValue[]) {}
}
class PickleGlobal {
  constructor(readonly path: string) {}
}
/** A Python dict being filled; OrderedDict reads as one too. */
type PickleDict = Map<string, StackValue>;
type StackValue = string | number | boolean | null | TorchTensor | StackValue[] | PickleDict | PickleTuple | PickleGlobal | StorageRef;

const REBUILD_TENSOR = 'torch._utils._rebuild_tensor_v2';
const ORDERED_DICT = 'collections.OrderedDict';
const STORAGE_DTYPES = new Map(Object.entries(STORAGE_TYPES).map(([dtype, { storage }]) => [`torch.${storage}`, dtype as TorchDType]));
const ALLOWED_GLOBALS = new Set([REBUILD_TENSOR, ORDERED_DICT, ...STORAGE_DTYPES.keys()]);

export function unpickleTorch(file: string, bytes: Uint8Array, buildTensor: TensorBuilder): TorchValue {
  return new Unpickler(file, bytes, buildTensor).run();
}

class Unpickler {
  private readonly view: DataView;
  private readonly stack: (StackValue | Mark)[] = [];
  private readonly memo = new Map<number, StackValue>();
  private at = 0;
  private opcodeAt = 0;

  constructor(
    private readonly file: string,
    private readonly bytes: Uint8Array,
    private readonly buildTensor: TensorBuilder,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  run(): TorchValue {
    for (;;) {
      this.opcodeAt = this.at;
      const opcode = this.u8();
      if (opcode === 0x2e) break; // STOP
      this.step(opcode);
    }
    if (this.stack.length !== 1) throw this.fail(`the pickle ends with ${this.stack.length} values on its stack, not 1`);
    return this.finish(this.pop());
  }

  private step(opcode: number): void {
    switch (opcode) {
      case 0x80: this.u8(); return; // PROTO n: any protocol; the opcodes themselves are checked
      case 0x95: this.take(8); return; // FRAME: a length hint only
      case 0x7d: this.push(new Map()); return; // EMPTY_DICT
      case 0x5d: this.push([]); return; // EMPTY_LIST
      case 0x29: this.push(new PickleTuple([])); return; // EMPTY_TUPLE
      case 0x28: this.stack.push(MARK); return; // MARK
      case 0x58: this.push(this.text(this.u32())); return; // BINUNICODE
      case 0x8c: this.push(this.text(this.u8())); return; // SHORT_BINUNICODE
      case 0x4a: this.push(this.view.getInt32(this.take(4), true)); return; // BININT
      case 0x4b: this.push(this.u8()); return; // BININT1
      case 0x4d: this.push(this.view.getUint16(this.take(2), true)); return; // BININT2
      case 0x8a: this.push(this.long(this.u8())); return; // LONG1
      case 0x47: this.push(this.view.getFloat64(this.take(8), false)); return; // BINFLOAT (big-endian)
      case 0x88: this.push(true); return; // NEWTRUE
      case 0x89: this.push(false); return; // NEWFALSE
      case 0x4e: this.push(null); return; // NONE
      case 0x74: this.push(new PickleTuple(this.popToMark())); return; // TUPLE
      case 0x85: case 0x86: case 0x87: this.push(new PickleTuple(this.popN(opcode - 0x84))); return; // TUPLE1..3
      case 0x73: this.setItems(this.popN(2)); return; // SETITEM
      case 0x75: this.setItems(this.popToMark()); return; // SETITEMS
      case 0x61: this.appendItems(this.popN(1)); return; // APPEND
      case 0x65: this.appendItems(this.popToMark()); return; // APPENDS
      case 0x71: this.memo.set(this.u8(), this.peek()); return; // BINPUT
      case 0x72: this.memo.set(this.u32(), this.peek()); return; // LONG_BINPUT
      case 0x94: this.memo.set(this.memo.size, this.peek()); return; // MEMOIZE
      case 0x68: this.push(this.recall(this.u8())); return; // BINGET
      case 0x6a: this.push(this.recall(this.u32())); return; // LONG_BINGET
      case 0x63: this.push(this.global()); return; // GLOBAL
      case 0x52: this.reduce(); return; // REDUCE
      case 0x51: this.push(this.storage(this.pop())); return; // BINPERSID
      default:
        throw this.fail(`pickle opcode 0x${opcode.toString(16).padStart(2, '0')} is not in the weights-only subset; refused`);
    }
  }

  private global(): PickleGlobal {
    const module = this.line();
    const name = this.line();
    const path = `${module}.${name}`;
    if (!ALLOWED_GLOBALS.has(path)) throw this.fail(`pickle global "${path}" is not allowed in a weights-only file; refused, nothing was executed`);
    return new PickleGlobal(path);
  }

  private reduce(): void {
    const args = this.pop();
    const callable = this.pop();
    if (!(callable instanceof PickleGlobal) || !(args instanceof PickleTuple)) throw this.fail('REDUCE needs a global and an argument tuple');
    if (callable.path === ORDERED_DICT) {
      if (args.items.length !== 0) throw this.fail('OrderedDict is only read empty-constructed, as torch.save writes it');
      this.push(new Map());
      return;
    }
    if (callable.path !== REBUILD_TENSOR) throw this.fail(`pickle global "${callable.path}" cannot be called`);
    this.push(this.rebuildTensor(args.items));
  }

  /** _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, backward_hooks[, metadata]). */
  private rebuildTensor(args: readonly StackValue[]): TorchTensor {
    const [storage, offset, size, stride, , hooks] = args;
    if (args.length < 6 || args.length > 7 || !isStorageRef(storage) || !isIndex(offset)) throw this.fail('_rebuild_tensor_v2 arguments are not (storage, offset, size, stride, requires_grad, hooks)');
    if (!(hooks instanceof Map) || hooks.size !== 0) throw this.fail('tensors with backward hooks are refused');
    return this.buildTensor({ storage, offset, shape: this.indexTuple(size, 'size'), stride: this.indexTuple(stride, 'stride') });
  }

  /** BINPERSID's ('storage', torch.<Type>Storage, key, location, numel). */
  private storage(pid: StackValue): StorageRef {
    const items = pid instanceof PickleTuple ? pid.items : [];
    const [tag, type, key, , numel] = items;
    if (items.length !== 5 || tag !== 'storage' || !(type instanceof PickleGlobal) || typeof key !== 'string' || !isIndex(numel)) {
      throw this.fail('persistent id is not a (storage, type, key, location, numel) tuple');
    }
    const dtype = STORAGE_DTYPES.get(type.path);
    if (dtype === undefined) throw this.fail(`"${type.path}" is not a storage type`);
    return { dtype, key, numel };
  }

  private indexTuple(value: StackValue | undefined, what: string): number[] {
    const items = value instanceof PickleTuple ? value.items : undefined;
    if (items === undefined || !items.every(isIndex)) throw this.fail(`tensor ${what} is not a tuple of non-negative integers`);
    return items as number[];
  }

  private setItems(items: readonly StackValue[]): void {
    const dict = this.peek();
    if (!(dict instanceof Map) || items.length % 2 !== 0) throw this.fail('SETITEM(S) needs a dict and key/value pairs');
    for (let i = 0; i < items.length; i += 2) {
      const key = items[i];
      if (typeof key !== 'string') throw this.fail(`dict key ${describe(key)} is not a string; only string keys are read`);
      if (dict.has(key)) throw this.fail(`dict key "${key}" appears twice`);
      dict.set(key, items[i + 1] as StackValue);
    }
  }

  private appendItems(items: readonly StackValue[]): void {
    const list = this.peek();
    if (!Array.isArray(list)) throw this.fail('APPEND(S) needs a list');
    list.push(...items);
  }

  /**
   * Internal values become TorchValues: tuples read as lists; a bare global or storage is refused.
   * A container shared through the memo stays one shared value (so repeated references cannot
   * blow up), and a container holding itself is refused rather than recursed into.
   */
  private finish(value: StackValue, done = new Map<object, TorchValue>(), open = new Set<object>()): TorchValue {
    if (value instanceof PickleGlobal) throw this.fail(`global "${value.path}" appears as a value`);
    if (isStorageRef(value)) throw this.fail(`storage "${value.key}" appears outside a tensor`);
    if (!(value instanceof PickleTuple || Array.isArray(value) || value instanceof Map)) return value;
    const finished = done.get(value);
    if (finished !== undefined) return finished;
    if (open.has(value)) throw this.fail('a list, tuple or dict contains itself');
    open.add(value);
    const item = (child: StackValue) => this.finish(child, done, open);
    const result: TorchValue = value instanceof Map
      ? new Map([...value].map(([key, child]) => [key, item(child)]))
      : (value instanceof PickleTuple ? value.items : value).map(item);
    open.delete(value);
    done.set(value, result);
    return result;
  }

  private recall(index: number): StackValue {
    const value = this.memo.get(index);
    if (value === undefined) throw this.fail(`memo slot ${index} is read before it is written`);
    return value;
  }

  private push(value: StackValue): void {
    this.stack.push(value);
  }

  private peek(): StackValue {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined || top === MARK) throw this.fail('stack underflow');
    return top;
  }

  private pop(): StackValue {
    const top = this.peek();
    this.stack.pop();
    return top;
  }

  private popN(count: number): StackValue[] {
    const items = this.stack.splice(this.stack.length - count, count);
    if (items.length !== count || items.some((item) => item === MARK)) throw this.fail('stack underflow');
    return items as StackValue[];
  }

  private popToMark(): StackValue[] {
    const mark = this.stack.findLastIndex((item) => item === MARK);
    if (mark < 0) throw this.fail('no MARK on the stack');
    const items = this.stack.splice(mark);
    return items.slice(1) as StackValue[];
  }

  private take(length: number): number {
    const start = this.at;
    if (start + length > this.bytes.length) throw this.fail('the pickle ends in the middle of an opcode (truncated data.pkl)');
    this.at += length;
    return start;
  }

  private u8(): number {
    return this.bytes[this.take(1)] as number;
  }

  private u32(): number {
    return this.view.getUint32(this.take(4), true);
  }

  private text(length: number): string {
    const start = this.take(length);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(this.bytes.subarray(start, start + length));
    } catch {
      throw this.fail('a string is not valid UTF-8');
    }
  }

  /** GLOBAL's operands are ASCII lines. */
  private line(): string {
    const end = this.bytes.indexOf(0x0a, this.at);
    if (end < 0) throw this.fail('GLOBAL operand is not newline-terminated (truncated data.pkl)');
    const start = this.take(end - this.at + 1);
    return Buffer.from(this.bytes.subarray(start, end)).toString('latin1');
  }

  /** LONG1: a little-endian two's-complement integer; only what a double holds exactly is read. */
  private long(length: number): number {
    const start = this.take(length);
    let value = 0n;
    for (let i = length - 1; i >= 0; i--) value = (value << 8n) | BigInt(this.bytes[start + i] as number);
    if (length > 0 && ((this.bytes[start + length - 1] as number) & 0x80) !== 0) value -= 1n << BigInt(8 * length);
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) throw this.fail(`integer ${value} is beyond 2^53`);
    return Number(value);
  }

  private fail(detail: string): CheckpointError {
    return new CheckpointError('pickle', this.file, `${detail} (data.pkl byte ${this.opcodeAt})`);
  }
}

function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isStorageRef(value: unknown): value is StorageRef {
  return typeof value === 'object' && value !== null && 'key' in value && 'numel' in value && 'dtype' in value;
}

function describe(value: StackValue | undefined): string {
  if (value instanceof PickleTuple) return 'a tuple';
  return typeof value === 'object' && value !== null ? 'a container' : JSON.stringify(value);
}
