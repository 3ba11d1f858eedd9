import { describe, expect, it } from 'vitest';
import { instantiate, isValidModule, op, signedLeb, unsignedLeb, wasmModule, type WasmMemory } from './wasm-emitter.ts';

describe('LEB128', () => {
  it('encodes the specification examples and the edges of a byte', () => {
    expect(unsignedLeb(624485)).toEqual([0xe5, 0x8e, 0x26]);
    expect(unsignedLeb(0)).toEqual([0x00]);
    expect(unsignedLeb(127)).toEqual([0x7f]);
    expect(unsignedLeb(128)).toEqual([0x80, 0x01]);
    expect(signedLeb(-123456)).toEqual([0xc0, 0xbb, 0x78]);
    expect(signedLeb(63)).toEqual([0x3f]);
    expect(signedLeb(64)).toEqual([0xc0, 0x00]);
    expect(signedLeb(-64)).toEqual([0x40]);
    expect(signedLeb(-65)).toEqual([0xbf, 0x7f]);
  });
});

describe('wasmModule', () => {
  // scale(at, end, factor): f64 pairs in [at, end) multiplied lane-wise by the f64 at `factor`, a
  // loop over SIMD loads and stores; a second function checks exports by index.
  const scale = [
    ...op.loop,
    ...op.localGet(0), ...op.localGet(0), ...op.v128Load(0),
    ...op.localGet(2), ...op.v128Load64Splat(0), ...op.f64x2Mul, ...op.v128Store(0),
    ...op.localGet(0), ...op.i32Const(16), ...op.i32Add, ...op.localTee(0),
    ...op.localGet(1), ...op.i32LtU, ...op.brIf(0),
    ...op.end,
  ];
  const sumLanes = [
    ...op.localGet(0), ...op.localGet(0), ...op.v128Load(0), ...op.f64x2ExtractLane(0),
    ...op.localGet(0), ...op.v128Load(0), ...op.f64x2ExtractLane(1), ...op.f64Add, ...op.f64Store(16),
  ];
  const bytes = wasmModule([
    { name: 'scale', params: 3, locals: { i32: 0, v128: 0 }, body: scale },
    { name: 'sumLanes', params: 1, locals: { i32: 1, v128: 1 }, body: sumLanes },
  ]);

  it('is a valid module whose functions run on the exported memory', () => {
    expect(isValidModule(bytes)).toBe(true);
    const exports = instantiate(bytes) as {
      memory: WasmMemory; scale: (at: number, end: number, factor: number) => void; sumLanes: (at: number) => void;
    };
    expect(exports.memory.buffer.byteLength).toBe(65536);
    const heap = new Float64Array(exports.memory.buffer);
    heap.set([1.5, -2, 3, 0.25, 10], 0);
    exports.scale(0, 32, 32);
    expect(Array.from(heap.subarray(0, 5))).toEqual([15, -20, 30, 2.5, 10]);
    exports.sumLanes(8);
    expect(heap[3]).toBe(10);
  });

  it('a wrong body fails validation rather than running', () => {
    const broken = wasmModule([{ name: 'f', params: 1, locals: { i32: 0, v128: 0 }, body: [...op.localGet(0), ...op.f64x2Mul] }]);
    expect(isValidModule(broken)).toBe(false);
  });
});
