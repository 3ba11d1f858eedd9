/**
 * Checkpoints the project had not been tried on, through the commands a user runs (inspect,
 * merge): each is edited correctly or refused with an error naming the file and tensor, exit 1,
 * and nothing is left at the output path.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DType } from '../io/dtype.ts';
import { SafetensorsFile } from '../io/safetensors-reader.ts';
import { withTempDir, writeFixtureCheckpoint, type FixtureTensor } from '../io/testing/fixtures.ts';
import { runCli } from './testing.ts';

const CONFIG = { model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], hidden_size: 4, num_hidden_layers: 1 };

function tensor(name: string, dtype: DType, values: readonly number[]): FixtureTensor {
  const data = dtype === 'F64' ? Float64Array.from(values) : dtype === 'I64' ? BigInt64Array.from(values.map(BigInt)) : Float32Array.from(values);
  return { spec: { name, dtype, shape: [values.length] }, data };
}

async function pair(dir: string, instruct: readonly FixtureTensor[], thinking: readonly FixtureTensor[]): Promise<{ i: string; t: string }> {
  const [i, t] = [join(dir, 'instruct'), join(dir, 'thinking')];
  await writeFixtureCheckpoint(i, instruct, { config: CONFIG });
  await writeFixtureCheckpoint(t, thinking, { config: CONFIG });
  return { i, t };
}

const merge = (i: string, t: string, out: string) => runCli(['merge', i, t, '--method', 'task_arithmetic', '--alpha', '0.5', '--out', out]);

describe('unusual checkpoints through inspect and merge', () => {
  it('refuses an Infinity in Instruct naming shard and tensor, exit 1, and leaves nothing beside --out', async () => {
    await withTempDir(async (dir) => {
      const { i, t } = await pair(dir, [tensor('w', 'F32', [1, Infinity, 3])], [tensor('w', 'F32', [3, 2, 1])]);
      const out = join(dir, 'outputs', 'merged');
      const merged = await merge(i, t, out);
      expect(merged.code).toBe(1);
      expect(merged.err.split('\n').at(-1)).toBe(`crane merge: ${join(i, 'model.safetensors')}: tensor "w": contains Infinity at flat index 1; nothing was written`);
      expect(await readdir(join(dir, 'outputs'))).toEqual([]);
    });
  });


  it('merges an F64 pair (read as float32, written back as F64) instead of copying Instruct', async () => {
    await withTempDir(async (dir) => {
      const { i, t } = await pair(dir, [tensor('w', 'F64', [1, 2, 3])], [tensor('w', 'F64', [3, 2, 1])]);
      const out = join(dir, 'merged');
      const merged = await merge(i, t, out);
      expect(merged.code, merged.err).toBe(0);
      const file = await SafetensorsFile.open(join(out, 'model.safetensors'));
      try {
        expect(file.info('w').dtype).toBe('F64');
        expect([...(await file.readFloat32('w'))]).toEqual([2, 2, 2]);
      } finally {
        await file.close();
      }
    });
  });
});
