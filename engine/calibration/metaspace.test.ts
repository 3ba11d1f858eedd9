import { describe, expect, it } from 'vitest';
import { continuationJson, metaspaceBytes, metaspaceStyle } from './metaspace.ts';

const REPLACE_DECODER = { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '▁' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }] };

describe('metaspaceStyle', () => {
  it('reads the replacement from a Replace or Metaspace decoder, and byte fallback from the model', () => {
    expect(metaspaceStyle({ decoder: REPLACE_DECODER, model: { byte_fallback: true } })).toEqual({ replacement: '▁', byteFallback: true });
    expect(metaspaceStyle({ decoder: { type: 'Metaspace', replacement: '_' }, model: {} })).toEqual({ replacement: '_', byteFallback: false });
    expect(metaspaceStyle({ decoder: { type: 'ByteLevel' }, model: { byte_fallback: true } })).toBeUndefined();
    expect(metaspaceStyle({ decoder: null })).toBeUndefined();
  });
});

describe('metaspaceBytes', () => {
  const style = { replacement: '▁', byteFallback: true };
  it('turns ▁ into a space and <0xAB> into the byte 0xAB', () => {
    expect([...metaspaceBytes('▁the▁▁', style)]).toEqual([...Buffer.from(' the  ')]);
    expect([...metaspaceBytes('<0xE2>', style)]).toEqual([0xe2]);
    expect([...metaspaceBytes('<0x0a>', style)]).toEqual([0x0a]);
    // Without byte fallback "<0x41>" is five ordinary characters.
    expect([...metaspaceBytes('<0x41>', { ...style, byteFallback: false })]).toEqual([...Buffer.from('<0x41>')]);
    expect([...metaspaceBytes('<0x4>', style)]).toEqual([...Buffer.from('<0x4>')]);
  });
});

describe('continuationJson', () => {
  it('turns a "first" prepend off, top-level or inside a Sequence, keeping everything else', () => {
    const first = { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false };
    expect(continuationJson({ model: 'm', pre_tokenizer: first })).toEqual({ model: 'm', pre_tokenizer: { ...first, prepend_scheme: 'never' } });
    const digits = { type: 'Digits', individual_digits: true };
    expect(continuationJson({ pre_tokenizer: { type: 'Sequence', pretokenizers: [digits, first] } })).toEqual({
      pre_tokenizer: { type: 'Sequence', pretokenizers: [digits, { ...first, prepend_scheme: 'never' }] },
    });
  });

  it('is undefined where a continuation encodes the same way', () => {
    expect(continuationJson({ pre_tokenizer: { type: 'Metaspace', prepend_scheme: 'always' } })).toBeUndefined();
    expect(continuationJson({ pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false } })).toBeUndefined();
    expect(continuationJson({ pre_tokenizer: null })).toBeUndefined();
  });
});
