import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import { readAimImportance, writeAimImportance } from './aim-importance-file.ts';

describe('the AIM importance file', () => {
  let tmp: string;
  beforeAll(async () => { tmp = await mkdtemp(join(tmpdir(), 'aim-file-')); });
  afterAll(async () => { await rm(tmp, { recursive: true, force: true }); });

  it('round-trips F32 vectors, sorted by module, equal values giving equal bytes', async () => {
    const importance = new Map([['model.layers.1.mlp.down_proj', Float64Array.of(0.5, 2)], ['model.layers.0.self_attn.o_proj', Float64Array.of(1, 0.25, 3)]]);
    const [a, b] = [join(tmp, 'a.safetensors'), join(tmp, 'b.safetensors')];
    await writeAimImportance(a, importance);
    await writeAimImportance(b, new Map([...importance].reverse()));
    expect((await readFile(a)).equals(await readFile(b))).toBe(true);
    const read = await readAimImportance(a);
    expect([...read.keys()]).toEqual(['model.layers.0.self_attn.o_proj', 'model.layers.1.mlp.down_proj']);
    expect(Array.from(read.get('model.layers.0.self_attn.o_proj') as Float32Array)).toEqual([1, 0.25, 3]);
  });

  it('refuses a 2-D tensor and a file with no vector, naming the file', async () => {
    const matrix = join(tmp, 'matrix.safetensors');
    await writeSafetensors(matrix, [{ spec: { name: 'model.layers.0.mlp.up_proj', dtype: 'F32', shape: [1, 2] }, data: Float32Array.of(1, 2) }]);
    await expect(readAimImportance(matrix)).rejects.toThrow(/matrix\.safetensors: tensor "model\.layers\.0\.mlp\.up_proj": is not a 1-D/);
    const empty = join(tmp, 'empty.safetensors');
    await writeSafetensors(empty, []);
    await expect(readAimImportance(empty)).rejects.toThrow(/empty\.safetensors: holds no AIM importance vectors/);
  });
});
