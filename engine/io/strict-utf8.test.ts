import { describe, expect, it } from 'vitest';
import { decodeStrictUtf8, locateInvalidUtf8 } from './strict-utf8.ts';

const bytes = (...parts: (string | number[])[]): Uint8Array =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('decodeStrictUtf8', () => {
  it('decodes valid text exactly and keeps or drops a byte-order mark as asked', () => {
    const fail = () => new Error('unexpected');
    expect(decodeStrictUtf8(bytes('héllo\n日本 🙂'), 'keep', fail)).toBe('héllo\n日本 🙂');
    expect(decodeStrictUtf8(bytes([0xef, 0xbb, 0xbf], '{}'), 'drop', fail)).toBe('{}');
    expect(decodeStrictUtf8(bytes([0xef, 0xbb, 0xbf], '{}'), 'keep', fail)).toBe('\ufeff{}');
  });

  it('throws the error the caller builds from the location', () => {
    expect(() => decodeStrictUtf8(bytes('ok\nab', [0xff]), 'keep', (at) => new Error(`line ${at.line} col ${at.column}`))).toThrow('line 2 col 3');
  });
});

describe('locateInvalidUtf8', () => {
  it('points at a stray byte with its line and column', () => {
    expect(locateInvalidUtf8(bytes('ok\nab', [0xff], 'c'))).toEqual({ offset: 5, line: 2, column: 3, byte: 0xff });
  });

  it('points at the lead byte of an overlong form, a surrogate, a Latin-1 "é" and a cut sequence', () => {
    // 0xC0 0xAF is an overlong "/": the classic filter bypass.
    expect(locateInvalidUtf8(bytes('hé', [0xc0, 0xaf], 'x')).offset).toBe(3);
    // 0xED 0xA0 0x80 encodes the surrogate U+D800, which UTF-8 forbids.
    expect(locateInvalidUtf8(bytes('x', [0xed, 0xa0, 0x80])).offset).toBe(1);
    expect(locateInvalidUtf8(bytes('caf', [0xe9], ' au lait'))).toMatchObject({ offset: 3, byte: 0xe9 });
    // "€" is E2 82 AC; text that ends after two of its bytes is cut mid-character.
    expect(locateInvalidUtf8(bytes('abc', [0xe2, 0x82]))).toMatchObject({ offset: 3, byte: 0xe2 });
    expect(locateInvalidUtf8(bytes('1\n2\n€', [0xe2, 0x82], '\n4'))).toMatchObject({ offset: 7, line: 3, column: 4 });
  });

  it('finds a bad byte far into a long input', () => {
    const long = Buffer.concat([Buffer.alloc(200_000, 0x61), Buffer.from([0xff])]);
    expect(locateInvalidUtf8(long)).toMatchObject({ offset: 200_000, line: 1, column: 200_001 });
  });
});
