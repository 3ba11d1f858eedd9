import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointError } from './checkpoint-error.ts';
import { unpickleTorch, type TensorView } from './torch-pickle.ts';
import type { TorchTensor, TorchValue } from './torch-value.ts';

// Hand-assembled pickles: every byte below is an opcode from CPython's Lib/pickletools.py.
const b = (...bytes: number[]) => Buffer.from(bytes);
const binunicode = (text: string) => { // X + u32 length + UTF-8
  const utf8 = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(utf8.length);
  return Buffer.concat([b(0x58), length, utf8]);
};
const global = (module: string, name: string) => Buffer.from(`c${module}\n${name}\n`, 'latin1');
const PROTO2 = b(0x80, 2);
const STOP = b(0x2e);
const pickle = (...parts: Buffer[]) => Buffer.concat([PROTO2, ...parts, STOP]);

/** Records each view and returns a tensor whose values number the view's elements. */
function recordingBuilder(views: TensorView[]) {
  return (view: TensorView): TorchTensor => {
    views.push(view);
    return { kind: 'tensor', dtype: view.storage.dtype, shape: view.shape, values: new Float32Array(view.shape.reduce((a, s) => a * s, 1)) };
  };
}

const read = (bytes: Buffer, views: TensorView[] = []): TorchValue => unpickleTorch('x.pt', bytes, recordingBuilder(views));

function refusal(bytes: Buffer): CheckpointError {
  try {
    read(bytes);
  } catch (error) {
    if (error instanceof CheckpointError) return error;
    throw error;
  }
  throw new Error('the pickle was accepted');
}

describe('unpickleTorch: the weights-only subset', () => {
  it('reads dicts, lists, tuples, strings, ints, floats, booleans and None', () => {
    const bytes = pickle(
      b(0x7d, 0x71, 0), // EMPTY_DICT, BINPUT 0
      b(0x28), // MARK
      binunicode('ints'), b(0x28, 0x4b, 7, 0x4d, 0x34, 0x12, 0x4a, 0xfe, 0xff, 0xff, 0xff, 0x8a, 5, 0, 0, 0, 0, 1, 0x8a, 0, 0x74), // (7, 0x1234, -2, 2^32, 0)
      binunicode('float'), b(0x47, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0), // BINFLOAT 1.5 (big-endian)
      binunicode('flags'), b(0x5d, 0x28, 0x88, 0x89, 0x4e, 0x65), // [True, False, None]
      binunicode('short'), b(0x8c, 3), Buffer.from('σr', 'utf8'), // SHORT_BINUNICODE (protocol 4)
      binunicode('pair'), b(0x4b, 1, 0x4b, 2, 0x86), // TUPLE2
      b(0x75), // SETITEMS
    );
    expect(read(bytes)).toEqual(new Map<string, TorchValue>([
      ['ints', [7, 0x1234, -2, 2 ** 32, 0]],
      ['float', 1.5],
      ['flags', [true, false, null]],
      ['short', 'σr'],
      ['pair', [1, 2]],
    ]));
  });

  it('shares memoised values (BINPUT / BINGET) and accepts FRAME and MEMOIZE', () => {
    const bytes = pickle(
      b(0x95, 0, 0, 0, 0, 0, 0, 0, 0), // FRAME (a length hint)
      b(0x7d, 0x28), // EMPTY_DICT, MARK
      binunicode('k'), b(0x5d, 0x94), binunicode('a'), b(0x61), // 'k': ['a'] (EMPTY_LIST, MEMOIZE → slot 0, APPEND)
      binunicode('j'), b(0x68, 0), // 'j': BINGET 0
      b(0x75), // SETITEMS
    );
    const dict = read(bytes) as Map<string, TorchValue>;
    expect(dict.get('k')).toEqual(['a']);
    expect(dict.get('j')).toBe(dict.get('k'));
  });

  it("rebuilds a tensor from torch.save's _rebuild_tensor_v2 call with its storage, offset, size and stride", () => {
    const views: TensorView[] = [];
    const bytes = pickle(
      b(0x7d), binunicode('V_r'),
      global('torch._utils', '_rebuild_tensor_v2'),
      b(0x28, 0x28), binunicode('storage'), global('torch', 'BFloat16Storage'), binunicode('3'), binunicode('cpu'), b(0x4b, 12, 0x74, 0x51), // persistent id, BINPERSID
      b(0x4b, 1), // storage offset
      b(0x4b, 4, 0x4b, 2, 0x86), // size (4, 2)
      b(0x4b, 1, 0x4b, 3, 0x86), // stride (1, 3): a transposed view
      b(0x89), global('collections', 'OrderedDict'), b(0x29, 0x52), // False, OrderedDict()
      b(0x74, 0x52), // TUPLE, REDUCE
      b(0x73), // SETITEM
    );
    const value = read(bytes, views) as Map<string, TorchValue>;
    expect(views).toEqual([{ storage: { dtype: 'BF16', key: '3', numel: 12 }, offset: 1, shape: [4, 2], stride: [1, 3] }]);
    expect(value.get('V_r')).toMatchObject({ kind: 'tensor', dtype: 'BF16', shape: [4, 2] });
  });
});

describe('unpickleTorch: refusals', () => {
  it('refuses GLOBAL os.system before anything is called, naming the global', () => {
    const marker = join(tmpdir(), `crane-pickle-marker-${process.pid}`);
    const error = refusal(pickle(global('os', 'system'), binunicode(`touch ${marker}`), b(0x85, 0x52)));
    expect(error.message).toMatch(/^x\.pt: pickle global "os\.system" is not allowed/);
    expect(error.code).toBe('pickle');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses builtins.eval and a non-tensor torch global', () => {
    expect(refusal(pickle(global('builtins', 'eval'), binunicode('1+1'), b(0x85, 0x52))).message).toContain('"builtins.eval"');
    expect(refusal(pickle(global('torch', 'load'))).message).toContain('"torch.load"');
  });

  it.each([
    ['STACK_GLOBAL', b(0x8c, 2), Buffer.from('os'), b(0x8c, 6), Buffer.from('system'), b(0x93), '0x93'],
    ['BUILD', b(0x7d, 0x7d, 0x62), '0x62'],
    ['INST', Buffer.from('ios\nsystem\n'), '0x69'],
    ['OBJ', b(0x28, 0x6f), '0x6f'],
    ['NEWOBJ', b(0x81), '0x81'],
    ['text-mode INT', Buffer.from('I1\n'), '0x49'],
  ])('refuses %s, naming the opcode', (...cases) => {
    const opcode = cases.pop() as string;
    const parts = cases.slice(1) as Buffer[];
    expect(refusal(pickle(...parts)).message).toContain(`opcode ${opcode} is not in the weights-only subset`);
  });

  it('refuses REDUCE of an allowed global with other arguments (OrderedDict with items)', () => {
    const bytes = pickle(global('collections', 'OrderedDict'), b(0x5d, 0x85, 0x52));
    expect(refusal(bytes).message).toContain('OrderedDict is only read empty-constructed');
  });

  it('refuses a storage type outside the whitelist and a malformed persistent id', () => {
    const persistent = (type: Buffer) => pickle(b(0x28), binunicode('storage'), type, binunicode('0'), binunicode('cpu'), b(0x4b, 1, 0x74, 0x51));
    expect(refusal(persistent(global('torch', 'IntStorage'))).message).toContain('"torch.IntStorage" is not allowed');
    expect(refusal(pickle(binunicode('0'), b(0x51))).message).toContain('persistent id is not a (storage, type, key, location, numel) tuple');
  });

  it('refuses non-string dict keys, repeated keys and a truncated pickle', () => {
    expect(refusal(pickle(b(0x7d, 0x4b, 1, 0x4b, 2, 0x73))).message).toContain('dict key 1 is not a string');
    expect(refusal(pickle(b(0x7d, 0x28), binunicode('a'), b(0x4e), binunicode('a'), b(0x4e, 0x75))).message).toContain('dict key "a" appears twice');
    expect(refusal(Buffer.concat([PROTO2, binunicode('abc').subarray(0, 6)])).message).toContain('truncated data.pkl');
    expect(refusal(Buffer.concat([PROTO2, b(0x4e)])).message).toContain('truncated data.pkl');
  });

  it('refuses a list that contains itself', () => {
    expect(refusal(pickle(b(0x5d, 0x71, 0, 0x68, 0, 0x61))).message).toContain('contains itself');
  });

  it('refuses reading an unwritten memo slot and a stack left with two values', () => {
    expect(refusal(pickle(b(0x68, 9))).message).toContain('memo slot 9 is read before it is written');
    expect(refusal(pickle(b(0x4e, 0x4e))).message).toContain('2 values on its stack');
  });
});
