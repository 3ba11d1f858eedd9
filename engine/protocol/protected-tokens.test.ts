import { describe, expect, it } from 'vitest';
import { applyProtectedEdits, formatIdRanges, formatProtectedEdits, parseProtectedEdits, tokenRowsFromAdded } from './protected-tokens.ts';

describe('protected lm_head rows', () => {
  it('protects every added token but the think pair, found by content wherever its ids are', () => {
    const added = [
      { id: 9, content: '</think>' }, { id: 3, content: '<tool_call>' }, { id: 1, content: '<|im_start|>' }, { id: 7, content: '<think>' }, { id: 3, content: '<tool_call>' },
    ];
    expect(tokenRowsFromAdded(added)).toEqual({ think: [7, 9], special: [1, 3] });
    expect(tokenRowsFromAdded([])).toEqual({ think: [], special: [] });
  });

  it('applies removals, then additions, ascending and without repeats', () => {
    expect(applyProtectedEdits([5, 1, 3], { add: [8, 1], remove: [3, 42] })).toEqual([1, 5, 8]);
    expect(applyProtectedEdits([5, 1], undefined)).toEqual([1, 5]);
  });

  it('parses +id, -id and bare ids, and prints the edits back as typed', () => {
    const edits = parseProtectedEdits(' +151669,-151650  151670 ,,');
    expect(edits).toEqual({ add: [151669, 151670], remove: [151650] });
    expect(formatProtectedEdits(edits)).toBe('+151669, +151670, -151650');
    expect(parseProtectedEdits(formatProtectedEdits(edits))).toEqual(edits);
    expect(parseProtectedEdits('')).toEqual({ add: [], remove: [] });
    expect(formatProtectedEdits(undefined)).toBe('');
  });

  it('refuses text that is not an edit, and an id both added and removed', () => {
    expect(() => parseProtectedEdits('+12,x')).toThrow('"x" is not a token id edit');
    expect(() => parseProtectedEdits('+-3')).toThrow('"+-3" is not a token id edit');
    expect(() => parseProtectedEdits('1.5')).toThrow('"1.5" is not a token id edit');
    expect(() => parseProtectedEdits('+4,-4')).toThrow('token id 4 is both added and removed');
  });

  it('folds consecutive ids into ranges', () => {
    expect(formatIdRanges([151666, 151643, 151644, 7, 151645, 9, 10])).toBe('7, 9–10, 151643–151645, 151666');
    expect(formatIdRanges([])).toBe('');
  });
});
