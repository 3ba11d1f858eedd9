import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { writeTinyCheckpoint } from '../model/testing/tiny-checkpoint.ts';
import { writeSequences } from '../pipeline/calibration-sequences.ts';
import { measureLewisImportance } from '../pipeline/lewis-importance-measure.ts';
import { pipelinePaths } from '../pipeline/pipeline-folder.ts';
import { initBackend } from '../tensor/backend.ts';
import { readLewisImportance } from '../crane/lewis-importance-file.ts';
import { lewisImportanceCommand } from './lewis-importance-command.ts';

const io = { out: () => undefined, err: () => undefined, isTty: false };

describe('crane lewis-importance', () => {
  let root: string;
  let model: string;
  const analysis = () => join(root, 'analysis');

  beforeAll(async () => {
    await initBackend('wasm');
    root = await mkdtemp(join(tmpdir(), 'lewis-command-'));
    model = await writeTinyCheckpoint({ family: 'llama', seed: 13, layers: 2 });
    const sequencesPath = pipelinePaths(analysis()).sequences;
    await mkdir(dirname(sequencesPath), { recursive: true });
    await writeSequences(sequencesPath, [
      { set: 'reasoning', split: 'train', source: 'r', ids: [4, 8, 15, 16, 23], lossMask: [0, 0, 0, 1, 1] },
      { set: 'agent', split: 'train', source: 'a', ids: [7, 1, 9, 2], lossMask: [0, 0, 1, 1] },
      { set: 'format', split: 'train', source: 'f', ids: [3, 3, 3] },
      { set: 'reasoning', split: 'heldout', source: 'h', ids: [5, 6, 7], lossMask: [0, 1, 1] },
    ]);
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(model, { recursive: true, force: true });
  });

  it('writes the importance of every block Linear on the D_R + D_A train prompts, which verify --method lewis reads', async () => {
    const out = join(root, 'instruct.json');
    expect(await lewisImportanceCommand.run([model, '--analysis', analysis(), '--out', out, '--batch', '1'], io)).toBe(0);
    const written = await readLewisImportance(out);
    const checkpoint = await Checkpoint.open(model);
    try {
      // The prompts up to the first loss position: [4, 8, 15] and [7, 1]; format and held-out sequences are not read.
      const want = await measureLewisImportance(loadCausalLM(checkpoint), [[4, 8, 15], [7, 1]], { batch: 2 });
      expect([...written.importance.keys()]).toEqual([...want.keys()].sort());
      for (const [name, v] of want) expect(Math.abs((written.importance.get(name) as number) - v) / v, name).toBeLessThan(1e-5);
    } finally {
      await checkpoint.close();
    }
    expect(JSON.parse(await readFile(out, 'utf8'))).toBeTypeOf('object');
  });

  it('refuses missing flags, a bad batch and an analysis without sequences', async () => {
    await expect(lewisImportanceCommand.run([model, '--out', join(root, 'x.json')], io)).rejects.toThrow(/--analysis DIR and --out FILE\.json are required/);
    await expect(lewisImportanceCommand.run([model, '--analysis', analysis(), '--out', join(root, 'x.json'), '--batch', '0'], io)).rejects.toThrow(/--batch must be a whole number/);
    await expect(lewisImportanceCommand.run([model, '--analysis', join(root, 'none'), '--out', join(root, 'x.json')], io)).rejects.toThrow(/calibration sequences missing/);
  });
});
