import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import { readCoefficients, writeCoefficients } from './coefficient-file.ts';
import { tinyAnalysis } from './testing/tiny-analysis.ts';

const { coefficients } = tinyAnalysis(3);
const scalars = { spec: { name: 'scalars', dtype: 'F64' as const, shape: [0, 6] }, data: new Float64Array(0) };

describe('preview-coefficients.safetensors', () => {
  it('reads back what was written, bit for bit', () => withTempDir(async (dir) => {
    const path = join(dir, 'coefficients.safetensors');
    await writeCoefficients(path, coefficients);
    expect(await readCoefficients(path)).toEqual(coefficients);
  }));

  it.each([
    ['not JSON', '[{"group":', /not valid JSON/],
    ['of another shape', JSON.stringify([{ group: 'ffn', block: 'up' }]), /is not a preview-coefficient file \(its "entries" metadata\)[\s\S]*layer/],
  ])('refuses an entries table that is %s, naming the file', (_what, entries, reason) => withTempDir(async (dir) => {
    const path = join(dir, 'coefficients.safetensors');
    await writeSafetensors(path, [scalars], { format: 'crane-preview-coefficients', keepQuantile: '0.5', entries });
    await expect(readCoefficients(path)).rejects.toThrow(`${path}: `);
    await expect(readCoefficients(path)).rejects.toThrow(reason);
  }));
});
