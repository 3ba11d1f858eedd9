/**
 * The reference-run round trip through the CLI: `crane analyze --export-reference`, then
 * `crane import-reference`, then `crane merge --analysis` on each: the same shards byte for byte.
 * Plus the command's usage errors and its place in `crane --help`.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyProject, type TinyProject } from '../pipeline/testing/tiny-project.ts';
import { initBackend } from '../tensor/backend.ts';
import { runCli } from './testing.ts';

let root: string;
let project: TinyProject;

beforeAll(async () => {
  await initBackend('wasm');
  root = await mkdtemp(join(tmpdir(), 'crane-cli-reference-'));
  project = await writeTinyProject(root);
});

afterAll(() => rm(root, { recursive: true, force: true }));

async function shards(dir: string): Promise<Map<string, Buffer>> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.safetensors')).sort();
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(dir, name))] as const)));
}

describe('crane import-reference', () => {
  it('analyze --export-reference → import-reference → merge: the same shards as merging the analysis directly', async () => {
    const { reasoning, agent, format } = project.settings.analysis.calibration;
    const [analysis, reference, imported] = ['analysis', 'reference', 'imported'].map((name) => join(root, name)) as [string, string, string];
    const analyzed = await runCli(['analyze', project.instruct, project.thinking, '--reasoning', reasoning, '--tool-use', agent, '--format', format,
      '--out', analysis, '--reasoning-max-new-tokens', '6', '--agent-max-new-tokens', '5', '--max-rank', '8', '--batch', '2', '--export-reference', reference]);
    expect(analyzed.code, analyzed.err).toBe(0);
    expect(analyzed.out).toContain(`reference-pipeline files in ${reference}: phase2_stats.json, format_projectors.pt`);
    const stats = join(reference, 'phase2_stats.json');
    const projectors = join(reference, 'format_projectors.pt');
    const run = await runCli(['import-reference', '--stats', stats, '--projectors', projectors, '--out', imported]);
    expect(run.code, run.err).toBe(0);
    const merge = (from: string, out: string) => runCli(['merge', project.instruct, project.thinking, '--analysis', from, '--out', join(root, out), '--alpha', '0.6', '--shard-size', '20KB']);
    expect((await merge(analysis, 'direct')).code).toBe(0);
    expect((await merge(imported, 'via-reference')).code).toBe(0);
    const [direct, via] = [await shards(join(root, 'direct')), await shards(join(root, 'via-reference'))];
    expect([...via.keys()]).toEqual([...direct.keys()]);
    for (const [name, bytes] of direct) expect(via.get(name)?.equals(bytes), name).toBe(true);
    const again = await runCli(['import-reference', '--stats', stats, '--projectors', projectors, '--out', imported]);
    expect(again.code).toBe(1);
    expect(again.err).toContain('already exists');
  }, 120_000);

  it('answers usage errors with exit 2 and is listed in crane --help', async () => {
    expect((await runCli(['import-reference', '--stats', 'a.json', '--out', 'x'])).err).toContain('--stats and --projectors are required');
    expect((await runCli(['import-reference', '--stats', 'a.json', '--projectors', 'b.pt'])).code).toBe(2);
    const missing = await runCli(['import-reference', '--stats', join(root, 'none.json'), '--projectors', 'b.pt', '--out', join(root, 'y')]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(join(root, 'none.json'));
    expect((await runCli(['--help'])).out).toContain('import-reference');
  });
});
