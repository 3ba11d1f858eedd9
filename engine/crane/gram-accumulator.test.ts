/**
 * GramAccumulator snapshots: an accumulator rebuilt from one (on another thread, in the projectors
 * stage) gives the same kept rows, Gram and projector bits as the original, on both sides of the
 * d/4 kept-rows limit, and a Gram snapshot's copy allocates no row buffer until rows arrive; a
 * snapshot of the wrong size is refused.
 */
import { describe, expect, it } from 'vitest';
import { lcg } from '../linalg/testing/matrices.ts';
import { GramAccumulator } from './gram-accumulator.ts';
import { projectorOfRows } from './gsp-projector.ts';

const DIM = 24;

function accumulated(rows: number, seed: number): GramAccumulator {
  const next = lcg(seed);
  const gram = new GramAccumulator(DIM);
  // In chunks of 5 rows, as a pass delivers them.
  for (let at = 0; at < rows; at += 5) gram.addRows(Float32Array.from({ length: Math.min(5, rows - at) * DIM }, () => next() * 4));
  return gram;
}

const bytes = (values: Float64Array | Float32Array | undefined): Buffer => Buffer.from(values?.buffer ?? new ArrayBuffer(0));

describe('GramAccumulator snapshots', () => {
  it('rebuild the kept rows, the Gram and the projector bit for bit, with and without kept rows', () => {
    for (const rows of [4, DIM / 4, 11, 300]) {
      const original = accumulated(rows, rows);
      const snapshot = original.snapshot();
      expect('rows' in snapshot).toBe(rows <= DIM / 4);
      const copy = GramAccumulator.fromSnapshot(structuredClone(snapshot));
      expect(copy.rowCount).toBe(rows);
      expect(bytes(copy.keptRows()).equals(bytes(original.keptRows()))).toBe(true);
      const [mine, theirs] = [original, copy].map((g) => projectorOfRows(g, { maxRank: 8 }));
      expect(mine?.rank).toBeGreaterThan(0);
      expect(bytes(theirs?.basis).equals(bytes(mine?.basis))).toBe(true);
      expect(bytes(theirs?.sigma).equals(bytes(mine?.sigma))).toBe(true);
      expect(bytes(copy.gram()).equals(bytes(original.gram()))).toBe(true);
    }
  });

  it('gives fresh arrays: changing the snapshot leaves the accumulator as it was', () => {
    const original = accumulated(300, 1);
    const before = original.gram();
    const snapshot = original.snapshot();
    if (!('upper' in snapshot)) throw new Error('300 rows of 24 keep no rows');
    snapshot.upper.fill(7);
    expect(bytes(original.gram()).equals(bytes(before))).toBe(true);
  });

  it('takes a Gram snapshot\'s triangle as its own and allocates no row buffer until rows arrive, which then add as on the original', () => {
    const original = accumulated(300, 2);
    const snapshot = original.snapshot();
    if (!('upper' in snapshot)) throw new Error('300 rows of 24 keep no rows');
    // A 512-wide one: its row buffer (512 × 256 float64, 1 MiB) would show in the ArrayBuffer total.
    const wide = new GramAccumulator(512);
    wide.addGram(new Float64Array(512 * 512), 600);
    const wideSnapshot = wide.snapshot();
    const before = process.memoryUsage().arrayBuffers;
    GramAccumulator.fromSnapshot(wideSnapshot);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(512 * 256 * 8 / 2);
    const copy = GramAccumulator.fromSnapshot(snapshot);
    const more = Float32Array.from({ length: 7 * DIM }, (_, i) => Math.sin(i));
    copy.addRows(more);
    original.addRows(more); // a snapshot flushes the original's block: both add these rows as a new one
    expect(bytes(copy.gram()).equals(bytes(original.gram()))).toBe(true);
  });

  it('refuses a snapshot whose arrays do not fit its dimension and row count', () => {
    expect(() => GramAccumulator.fromSnapshot({ dim: DIM, rowCount: 3, rows: new Float64Array(DIM * 2) })).toThrow(/24-wide snapshot of 3 rows has 48 values, expected 72/);
    expect(() => GramAccumulator.fromSnapshot({ dim: DIM, rowCount: 400, upper: new Float64Array(10) })).toThrow(/expected 576/);
    expect(() => GramAccumulator.fromSnapshot({ dim: DIM, rowCount: 7, rows: new Float64Array(DIM * 7) })).toThrow(/at most 6 rows of 24, not 7/);
  });
});
