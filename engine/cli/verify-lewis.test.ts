/**
 * `crane verify --method lewis` on the tiny analysed project: without --importance-base/
 * --importance-tuned it measures the analysis' own pair on first use (saying so), reads the cache
 * the next time, and measures exactly what the same files named by the flags give.
 */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../tensor/backend.ts';
import { analysedProject, type AnalysedProject } from '../pipeline/testing/analysed-project.ts';
import { runCli } from './testing.ts';

let project: AnalysedProject;
const LEWIS = ['--method', 'lewis', '--alpha', '0.6', '--gamma', '0.2', '--on-calibration', '--json'];
const MEASURING = /measuring LEWIS importance of Instruct and Thinking/;

beforeAll(async () => {
  await initBackend('wasm');
  project = await analysedProject(await mkdtemp(join(tmpdir(), 'crane-verify-lewis-')));
}, 240_000);

afterAll(() => rm(project.root, { recursive: true, force: true }));

const verify = (...flags: string[]) => runCli(['verify', project.outDir, ...LEWIS, ...flags]);
const edited = (out: string) => (JSON.parse(out) as { edited: { reasoning: number; agent: number } }).edited;

describe('crane verify --method lewis', () => {
  it('uses the analysis\' own importance, measured once and cached, the same as naming those files', async () => {
    const first = await verify();
    expect(first.code, first.err).toBe(0);
    expect(first.err).toMatch(MEASURING);
    expect((await readdir(join(project.outDir, 'stages', 'lewis'))).sort()).toEqual(expect.arrayContaining(['lewis-importance-base.json', 'lewis-importance-tuned.json']));

    const cached = await verify();
    expect(cached.code, cached.err).toBe(0);
    expect(cached.err).not.toMatch(MEASURING);
    expect(edited(cached.out)).toEqual(edited(first.out));

    const files = join(project.root, 'lewis-files');
    await cp(join(project.outDir, 'stages', 'lewis'), files, { recursive: true });
    const named = await verify('--importance-base', join(files, 'lewis-importance-base.json'), '--importance-tuned', join(files, 'lewis-importance-tuned.json'));
    expect(named.code, named.err).toBe(0);
    expect(edited(named.out)).toEqual(edited(first.out));
  }, 240_000);

  it('refuses one file without the other, and the files with another method', async () => {
    const one = await verify('--importance-base', 'a.json');
    expect(one.err).toMatch(/--method lewis needs --importance-base F \(Instruct\) and --importance-tuned F \(Thinking\), or neither to use the analysis' own/);
    const ties = await runCli(['verify', project.outDir, '--method', 'ties', '--importance-tuned', 'b.json']);
    expect(ties.err).toMatch(/--importance-base\/--importance-tuned go with --method lewis/);
    expect([one.code, ties.code]).toEqual([2, 2]);
  });
});
