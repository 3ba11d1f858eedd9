import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { readSequences, writeSequences, type CalibrationSequence } from './calibration-sequences.ts';

const sequences: CalibrationSequence[] = [
  { set: 'reasoning', split: 'train', source: 'r.jsonl:1', ids: [5, 6, 7], lossMask: [0, 1, 1], target: 'decoded' },
  { set: 'format', split: 'train', source: 'f.jsonl:3', ids: [8, 9], formatPositions: [1] },
];

describe('calibration-sequences.jsonl', () => {
  it('reads back what was written', () => withTempDir(async (dir) => {
    const path = join(dir, 'sequences.jsonl');
    await writeSequences(path, sequences);
    expect(await readSequences(path)).toEqual(sequences);
  }));

  it('refuses a line of another shape, naming file and line', () => withTempDir(async (dir) => {
    const path = join(dir, 'sequences.jsonl');
    await writeSequences(path, sequences);
    await appendFile(path, `${JSON.stringify({ ...sequences[0], lossMask: [0, 2, 1] })}\n`);
    await expect(readSequences(path)).rejects.toThrow(`${path}:3: is not a calibration sequence`);
  }));

  it('says to run the analysis where there is no file', () => withTempDir(async (dir) => {
    await expect(readSequences(join(dir, 'none.jsonl'))).rejects.toThrow(/run `crane analyze` first/);
  }));
});
