import { describe, expect, it } from 'vitest';
import { ProtocolError } from './errors.ts';
import { decodeMessage, encodeMessage, messagePrefix } from './frame.ts';

function bits(array: Float32Array): Uint32Array {
  return new Uint32Array(array.buffer, array.byteOffset, array.length);
}

/** Every float class: ±0, subnormals, ±inf, NaNs with payloads, extremes, then random bits. */
function trickyFloats(count: number): Float32Array {
  const out = new Float32Array(count);
  const raw = new Uint32Array(out.buffer);
  const specials = [0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fa12345, 0xffffffff, 0x7f7fffff];
  raw.set(specials.slice(0, count));
  let state = 12345;
  for (let i = specials.length; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    raw[i] = state;
  }
  return out;
}

describe('message encoding', () => {
  it('sends messages without binary payloads as JSON text', () => {
    const data = encodeMessage({ id: 1, method: 'ping', params: {} });
    expect(data).toBe('{"id":1,"method":"ping","params":{}}');
    expect(decodeMessage(data)).toEqual({ id: 1, method: 'ping', params: {} });
  });

  it('round-trips Float32Arrays bit-exactly in a binary frame only a small head larger than the data', () => {
    const a = trickyFloats(100_000);
    const b = trickyFloats(3);
    const data = encodeMessage({ id: 2, ok: true, result: { a, nested: [{ b }], label: 'x' } });
    expect(data).toBeInstanceOf(Uint8Array);
    const dataBytes = a.byteLength + b.byteLength;
    expect((data as Uint8Array).byteLength).toBeGreaterThanOrEqual(dataBytes);
    expect((data as Uint8Array).byteLength).toBeLessThan(dataBytes + 128);
    const decoded = decodeMessage(data) as { result: { a: Float32Array; nested: [{ b: Float32Array }]; label: string } };
    expect(decoded.result.a).toBeInstanceOf(Float32Array);
    expect(bits(decoded.result.a)).toEqual(bits(a));
    expect(bits(decoded.result.nested[0].b)).toEqual(bits(b));
    expect(decoded.result.label).toBe('x');
  });

  it('views aligned buffers in place and copies misaligned ones', () => {
    const frame = encodeMessage({ v: new Float32Array([1.5, -2]) }) as Uint8Array;
    const aligned = decodeMessage(frame) as { v: Float32Array };
    expect(aligned.v.buffer).toBe(frame.buffer);
    const shifted = new Uint8Array(frame.byteLength + 1).subarray(1);
    shifted.set(frame);
    const copied = decodeMessage(shifted) as { v: Float32Array };
    expect([...copied.v]).toEqual([1.5, -2]);
    expect(copied.v.buffer).not.toBe(shifted.buffer);
  });

  it('refuses other typed arrays rather than turning them into objects', () => {
    expect(() => encodeMessage({ v: new Float64Array(2) })).toThrow(/only Float32Array/);
  });

  it('reads the start of the JSON of text and of frames without decoding them', () => {
    expect(messagePrefix('{"id":5,"method":"x"}', 8)).toBe('{"id":5,');
    expect(messagePrefix(encodeMessage({ id: 6, v: new Float32Array(4) }), 8)).toBe('{"id":6,');
    expect(messagePrefix(new Uint8Array([1, 2, 3]))).toBe('');
  });
});

describe('malformed input is refused with bad-request', () => {
  const frame = encodeMessage({ v: new Float32Array([1, 2, 3]) }) as Uint8Array;
  const withByte = (offset: number, value: number) => {
    const copy = frame.slice();
    copy[offset] = value;
    return copy;
  };
  const cases: [string, string | Uint8Array][] = [
    ['malformed JSON', '{"id": 1,'],
    ['a reference to a missing buffer', '{"v":{"$f32":0}}'],
    ['a binary message without the magic', withByte(0, 0x58)],
    ['a frame shorter than its prefix', frame.subarray(0, 6)],
    ['a head that runs past the end', withByte(8, 0xff)],
    ['a buffer that runs past the end', frame.subarray(0, frame.byteLength - 8)],
    ['bytes after the last buffer', new Uint8Array([...frame, 0, 0, 0, 0, 0, 0, 0, 0])],
    ['a head that is not UTF-8', withByte(16, 0xff)],
  ];
  it.each(cases)('%s', (_what, data) => {
    expect(() => decodeMessage(data)).toThrow(ProtocolError);
    try {
      decodeMessage(data);
    } catch (error) {
      expect((error as ProtocolError).code).toBe('bad-request');
    }
  });

  it('calls valid JSON nested deeper than the stack too deep, not malformed', () => {
    expect(() => decodeMessage(`{"v":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)).toThrow(new ProtocolError('bad-request', 'JSON nested too deeply'));
  });
});
