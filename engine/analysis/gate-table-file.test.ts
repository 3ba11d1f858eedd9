import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { gateTableJson, readGateTable } from './gate-table-file.ts';
import { tinyAnalysis } from './testing/tiny-analysis.ts';

const { gate } = tinyAnalysis(5);

describe('gate-table.json', () => {
  it('reads back the table it was written from, S recomputed bit for bit', () => withTempDir(async (dir) => {
    const file = join(dir, 'gate-table.json');
    await writeFile(file, JSON.stringify(gateTableJson(gate)));
    const back = await readGateTable(file);
    expect([...back.scores.keys()]).toEqual([...gate.scores.keys()]);
    for (const [key, score] of gate.scores) expect(back.scores.get(key)).toEqual(score);
  }));

  it.each([
    ['not JSON', '{"format":', /not valid JSON/],
    ['of another shape', JSON.stringify({ format: 'crane-gate-table', reference: 'ffn', blocks: [{ key: 'ffn@0' }] }), /is not a gate table[\s\S]*group/],
  ])('refuses a file that is %s, naming it', (_what, text, reason) => withTempDir(async (dir) => {
    const file = join(dir, 'gate-table.json');
    await writeFile(file, text);
    await expect(readGateTable(file)).rejects.toThrow(`${file}: `);
    await expect(readGateTable(file)).rejects.toThrow(reason);
  }));

  it('says where the missing table was expected', () => withTempDir(async (dir) => {
    await expect(readGateTable(join(dir, 'gate-table.json'))).rejects.toThrow(`${join(dir, 'gate-table.json')}: no gate table here`);
  }));
});
