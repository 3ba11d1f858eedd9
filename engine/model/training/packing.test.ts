import { describe, expect, it } from 'vitest';
import { packWindows } from './packing.ts';

describe('packWindows', () => {
  it('concatenates chats into full windows, keeping masks aligned and dropping the tail', () => {
    const windows = packWindows(
      [
        { ids: [1, 2, 3], lossMask: [0, 1, 1] },
        { ids: [4, 5, 6, 7], lossMask: [0, 0, 1, 1] },
        { ids: [8, 9], lossMask: [1, 1] },
      ],
      4,
    );
    expect(windows).toEqual([
      { ids: [1, 2, 3, 4], targets: [0, 1, 1, 0] },
      { ids: [5, 6, 7, 8], targets: [0, 1, 1, 1] },
    ]);
  });

  it('skips windows with no target after the first position', () => {
    expect(packWindows([{ ids: [1, 2, 3, 4], lossMask: [1, 0, 0, 0] }], 2)).toEqual([]);
  });
});
