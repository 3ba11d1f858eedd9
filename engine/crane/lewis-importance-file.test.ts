import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTorchFile } from '../io/torch-file.ts';
import { readLewisImportance } from './lewis-importance-file.ts';

const dir = await mkdtemp(join(tmpdir(), 'lewis-importance-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

const sha256Of = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex');

describe('LEWIS importance files', () => {
  it('reads a torch.save dict of module → float (lewis_importance.py\'s format), with the file\'s SHA-256', async () => {
    const path = join(dir, 'instruct.pt');
    await writeTorchFile(path, new Map([['model.layers.0.self_attn.q_proj', 12.5], ['model.layers.0.mlp.experts.3.up_proj', 0.125], ['model.layers.1.mlp.down_proj', 2]]));
    const { importance, sha256 } = await readLewisImportance(path);
    expect([...importance]).toEqual([['model.layers.0.self_attn.q_proj', 12.5], ['model.layers.0.mlp.experts.3.up_proj', 0.125], ['model.layers.1.mlp.down_proj', 2]]);
    expect(sha256).toBe(await sha256Of(path));
  });

  it('reads the same dict as JSON', async () => {
    const path = join(dir, 'thinking.json');
    await writeFile(path, JSON.stringify({ 'model.layers.0.self_attn.q_proj': 3.25, 'model.layers.1.self_attn.q_proj': 0 }));
    const { importance, sha256 } = await readLewisImportance(path);
    expect(importance.get('model.layers.0.self_attn.q_proj')).toBe(3.25);
    expect(importance.get('model.layers.1.self_attn.q_proj')).toBe(0);
    expect(sha256).toBe(await sha256Of(path));
  });

  it('refuses what is not a dict of finite numbers ≥ 0, naming the file and the module', async () => {
    const cases: [string, string, RegExp][] = [
      ['list.json', '[1, 2]', /list\.json: does not hold an object/],
      ['text.json', '{"model.layers.0.self_attn.q_proj": "big"}', /text\.json: importance of model\.layers\.0\.self_attn\.q_proj is big/],
      ['negative.json', '{"model.layers.2.mlp.up_proj": -1}', /importance of model\.layers\.2\.mlp\.up_proj is -1/],
      ['empty.json', '{}', /empty\.json: holds no module importance/],
      ['broken.json', '{"a": ', /broken\.json: is not valid JSON/],
      ['importance.txt', '{}', /importance\.txt: LEWIS importance files are \.pt/],
    ];
    for (const [name, text, error] of cases) {
      await writeFile(join(dir, name), text);
      await expect(readLewisImportance(join(dir, name)), name).rejects.toThrow(error);
    }
    const tensorPath = join(dir, 'tensor.pt');
    await writeTorchFile(tensorPath, [1.5, 2.5]);
    await expect(readLewisImportance(tensorPath)).rejects.toThrow(/tensor\.pt: does not hold a dict/);
    await expect(readLewisImportance(join(dir, 'absent.pt'))).rejects.toThrow(/absent\.pt: LEWIS importance file cannot be read/);
  });
});
