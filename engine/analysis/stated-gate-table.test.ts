/**
 * A stated gate table (a reference run's S): every S kept exactly, per layer and global, through
 * gate-table.json and back (with its origin), and never derived from the empty sums.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveScale } from '../crane/gate-scales.ts';
import { classifyTensor } from '../crane/tensor-classification.ts';
import { withTempDir } from '../io/testing/fixtures.ts';
import { gateTableJson, readGateTableFile } from './gate-table-file.ts';
import { statedGateTable } from './stated-gate-table.ts';

const table = statedGateTable('ffn', [
  { id: { group: 'attention', block: null, layer: 0 }, scale: 0.1 + 0.2 },
  { id: { group: 'ffn', block: null, layer: 0 }, scale: 1 },
  { id: { group: 'attention', block: 'q', layer: 0 }, scale: 2 / 3 },
  { id: { group: 'attention', block: null, layer: null }, scale: 0.7071067811865476 },
]);

describe('stated gate table', () => {
  it('edits with the stated S: layer first, then the global value, as the reference merge', () => {
    const options = { granularity: 'fine' as const, overrideScales: {} };
    expect(resolveScale(classifyTensor('model.layers.0.self_attn.q_proj.weight'), table, options)).toEqual({ value: 2 / 3, source: 'layer', key: 'attention.q@0' });
    expect(resolveScale(classifyTensor('model.layers.0.self_attn.k_proj.weight'), table, options).value).toBe(0.1 + 0.2);
    expect(resolveScale(classifyTensor('model.layers.5.self_attn.k_proj.weight'), table, options)).toEqual({ value: 0.7071067811865476, source: 'global', key: 'attention@*' });
    expect(resolveScale(classifyTensor('model.layers.5.mlp.up_proj.weight'), table, options).source).toBe('unscored');
  });

  it('goes through gate-table.json and back bit for bit, marked as a reference run', () => withTempDir(async (dir) => {
    const file = join(dir, 'gate-table.json');
    await writeFile(file, JSON.stringify(gateTableJson(table, 'reference-run')));
    const back = await readGateTableFile(file);
    expect(back.origin).toBe('reference-run');
    expect([...back.table.scores.entries()]).toEqual([...table.scores.entries()]);
    await writeFile(file, JSON.stringify(gateTableJson(table)));
    const recomputed = await readGateTableFile(file);
    expect(recomputed.origin).toBe('gradients');
    expect(recomputed.table.scores.get('attention@0')?.scale).not.toBe(0.1 + 0.2);
  }));

  it('refuses a non-finite S, naming the block', () => {
    expect(() => statedGateTable('ffn', [{ id: { group: 'ffn', block: null, layer: 2 }, scale: Number.NaN }])).toThrow('block ffn@2: S must be a finite number');
  });
});
