import { describe, expect, it } from 'vitest';
import { CalibrationError } from './calibration-error.ts';
import { decodeUtf8 } from './utf8-text.ts';

const bytes = (...parts: (string | number[])[]): Uint8Array =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

function failure(input: Uint8Array): CalibrationError {
  try {
    decodeUtf8(input, 'f.txt');
  } catch (error) {
    expect(error).toBeInstanceOf(CalibrationError);
    return error as CalibrationError;
  }
  throw new Error('expected invalid UTF-8 to be refused');
}

describe('decodeUtf8', () => {
  it('decodes valid UTF-8 exactly, multi-byte characters included, and drops a byte-order mark', () => {
    expect(decodeUtf8(bytes('héllo\n日本 🙂'), 'f.txt')).toBe('héllo\n日本 🙂');
    expect(decodeUtf8(bytes([0xef, 0xbb, 0xbf], '{}'), 'f.txt')).toBe('{}');
  });

  it('names the line and byte of a stray byte, an overlong form, a surrogate and a truncated sequence', () => {
    expect(failure(bytes('ok\nab', [0xff], 'c')).message).toBe('f.txt:2: is not valid UTF-8 (invalid byte 0xff at byte 3 of the line)');
    // 0xC0 0xAF is an overlong "/": the classic filter bypass.
    expect(failure(bytes('a\nb\n', [0xc0, 0xaf])).where).toBe('f.txt:3');
    // 0xED 0xA0 0x80 encodes the surrogate U+D800, which UTF-8 forbids.
    expect(failure(bytes('x', [0xed, 0xa0, 0x80])).where).toBe('f.txt:1');
    // "€" is E2 82 AC; a line that ends after two of its bytes is cut mid-character.
    const truncated = failure(bytes('1\n2\n€', [0xe2, 0x82], '\n4'));
    expect(truncated.code).toBe('encoding');
    expect(truncated.where).toBe('f.txt:3');
  });
});
