import { describe, expect, it } from 'vitest';
import { migrateProject } from './project-migration.ts';

describe('project.json migration', () => {
  it('gives a v3 project no Base (v4), and leaves a v4 project with one as it is', () => {
    const v3 = { format: 'crane-project', formatVersion: 3, instruct: '/i', thinking: '/t', analysis: null, verified: [], exports: [] };
    expect(migrateProject(v3)).toEqual({ ...v3, formatVersion: 4, base: null });
    const v4 = { ...v3, formatVersion: 4, base: '/b' };
    expect(migrateProject(v4)).toEqual(v4);
  });

  it('carries a v1 file through every step to v4', () => {
    const v1 = { format: 'crane-project', formatVersion: 1, settings: { grouping: 'coarse', stages: { ctg: true } }, analysis: { heldOutFraction: 0 }, verified: [], exports: [] };
    expect(migrateProject(v1)).toMatchObject({ formatVersion: 4, base: null, settings: { granularity: 'coarse', stages: { gate: true } }, analysis: { evaluation: { source: 'calibration' } } });
  });
});
