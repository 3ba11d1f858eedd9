/**
 * The four pipeline commands through the CLI on one tiny project: analyze (+ --export), preview,
 * verify and merge (flags, then --recipe for a bit-identical copy), and their usage errors.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../tensor/backend.ts';
import { writeTinyProject, type TinyProject } from '../pipeline/testing/tiny-project.ts';
import { runCli } from './testing.ts';

let root: string;
let project: TinyProject;
let analysis: string;

beforeAll(async () => {
  await initBackend('wasm');
  root = await mkdtemp(join(tmpdir(), 'crane-cli-'));
  project = await writeTinyProject(root);
  analysis = join(root, 'analysis');
});

afterAll(() => rm(root, { recursive: true, force: true }));

const analyzeArgs = (out = analysis) => {
  const { reasoning, agent, format } = project.settings.analysis.calibration;
  return ['analyze', project.instruct, project.thinking, '--reasoning', reasoning, '--tool-use', agent, '--format', format, '--out', out,
    '--reasoning-max-new-tokens', '6', '--agent-max-new-tokens', '5', '--max-rank', '8', '--batch', '2'];
};

describe('crane analyze / preview / verify / merge', () => {
  it('analyzes, then reports every stage cached on a rerun, and exports the open artifacts', async () => {
    // Gradients on two worker threads; the rerun without --workers finds them cached (no key holds it).
    const first = await runCli([...analyzeArgs(), '--workers', '2', '--json']);
    expect(first.code, first.err).toBe(0);
    const summary = JSON.parse(first.out) as { stages: { stage: string; cached: boolean }[] };
    expect(summary.stages.map((s) => s.stage)).toEqual(['targets', 'projectors', 'gradients', 'gates', 'curvature']);
    expect(first.err).toMatch(/gradients\s+done in/);
    const open = join(root, 'open');
    const again = await runCli([...analyzeArgs(), '--export', open]);
    expect(again.code).toBe(0);
    expect(again.err).toMatch(/targets\s+cached[\s\S]*gates\s+cached/);
    expect((await readdir(open)).sort()).toEqual(['aim-importance.safetensors', 'analysis.json', 'calibration-sequences.jsonl', 'gate-table.json', 'projectors.safetensors']);
    const line = JSON.parse((await readFile(join(open, 'calibration-sequences.jsonl'), 'utf8')).split('\n')[0] as string) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual(expect.arrayContaining(['set', 'split', 'ids', 'lossMask']));
    expect(await readFile(join(open, 'projectors.safetensors'), 'latin1')).toContain('"layer_1_ffn_input.V"');
    // --export replaces a previous export, never another folder.
    expect((await runCli([...analyzeArgs(), '--export', open])).code).toBe(0);
    const mine = join(root, 'mine');
    await mkdir(mine);
    await writeFile(join(mine, 'notes.txt'), 'keep');
    const refused = await runCli([...analyzeArgs(), '--export', mine]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/mine: exists and is not a previous analysis export/);
    expect(await readdir(mine)).toEqual(['notes.txt']);
  });

  it('previews and verifies with the same settings', async () => {
    const preview = await runCli(['preview', analysis, '--alpha', '0.1', '--tau', '0.05', '--json']);
    expect(preview.code, preview.err).toBe(0);
    const p = JSON.parse(preview.out) as { deltaLossReasoning: number; blocks: { block: string }[] };
    expect(p.blocks.map((b) => b.block)).toContain('attention@1');
    const verify = await runCli(['verify', analysis, '--alpha', '0.1', '--tau', '0.05', '--json']);
    expect(verify.code, verify.err).toBe(0);
    const v = JSON.parse(verify.out) as { predicted: { reasoning: number }; measured: { reasoning: number }; measuredOn: unknown; sequences: unknown };
    expect(v.measuredOn).toEqual({ source: 'calibration' });
    expect(v.sequences).toEqual({ reasoning: 4, agent: 3 });
    expect(v.predicted.reasoning).toBeCloseTo(p.deltaLossReasoning, 12);
    const table = await runCli(['verify', analysis, '--method', 'ties', '--alpha', '0.3']);
    expect(table.out).toMatch(/L_R\s+\d\.\d+\s+\d\.\d+\s+[+-]\d\.\d+\s+n\/a/);
    expect(table.out).toMatch(/^ties measured on the calibration sets themselves \(the sequences the gradients used\) \(4 \+ 3 sequences/);
  });

  it('measures on the evaluation files or the held-out share the flags name, and says which', async () => {
    const files = ['--eval-reasoning', project.evaluation.reasoning, '--eval-tool-use', project.evaluation.agent];
    const onFiles = await runCli(['verify', analysis, '--method', 'slerp', ...files]);
    expect(onFiles.code, onFiles.err).toBe(0);
    expect(onFiles.out).toMatch(/^slerp measured on eval files eval-reasoning\.jsonl \+ eval-tool-use\.jsonl \(1 \+ 1 sequences/);
    // Files given to analyze are what verify measures on by default; they are no input of any stage.
    const recorded = await runCli([...analyzeArgs(), ...files]);
    expect(recorded.code, recorded.err).toBe(0);
    expect(recorded.err).toMatch(/targets\s+cached[\s\S]*projectors\s+cached[\s\S]*gradients\s+cached[\s\S]*gates\s+cached/);
    const byDefault = JSON.parse((await runCli(['verify', analysis, '--method', 'slerp', '--json'])).out) as { measuredOn: unknown };
    expect(byDefault.measuredOn).toEqual({ source: 'files', ...project.evaluation });
    const calibrationAnyway = JSON.parse((await runCli(['verify', analysis, '--method', 'slerp', '--on-calibration', '--json'])).out) as { measuredOn: unknown };
    expect(calibrationAnyway.measuredOn).toEqual({ source: 'calibration' });
    // A held-out share leaves those prompts out of the gradients; verify measures on them.
    const heldOut = join(root, 'analysis-held-out');
    expect((await runCli([...analyzeArgs(heldOut), '--held-out', '0.34'])).code).toBe(0);
    const split = JSON.parse((await runCli(['verify', heldOut, '--method', 'slerp', '--json'])).out) as { measuredOn: unknown; sequences: unknown };
    expect(split).toMatchObject({ measuredOn: { source: 'held-out', fraction: 0.34 }, sequences: { reasoning: 1, agent: 1 } });
  });

  it('merges from flags, then bit for bit from the recipe', async () => {
    const out = join(root, 'merged');
    const merged = await runCli(['merge', project.instruct, project.thinking, '--analysis', analysis, '--out', out, '--alpha', '0.3', '--dtype', 'bf16', '--shard-size', '20KB', '--json']);
    expect(merged.code, merged.err).toBe(0);
    expect((JSON.parse(merged.out) as { recipe: { method: { settings: { alpha: number } } } }).recipe.method.settings.alpha).toBe(0.3);
    const copy = join(root, 'copy');
    const again = await runCli(['merge', '--recipe', join(out, 'crane_recipe.json'), project.instruct, project.thinking, '--analysis', analysis, '--out', copy]);
    expect(again.code, again.err).toBe(0);
    for (const file of (await readdir(out)).filter((f) => f.endsWith('.safetensors'))) {
      expect((await readFile(join(copy, file))).equals(await readFile(join(out, file))), file).toBe(true);
    }
  });

  it('answers usage errors with exit 2 and missing analyses with exit 1', async () => {
    expect((await runCli(['analyze', project.instruct, project.thinking, '--out', analysis])).err).toMatch(/--reasoning, --tool-use and --format are required/);
    expect((await runCli(['preview', analysis, '--alpha', 'much'])).code).toBe(2);
    expect((await runCli([...analyzeArgs(), '--long-sequences', 'drop'])).err).toMatch(/--long-sequences must be one of cut, warn, refuse, got "drop"/);
    expect((await runCli([...analyzeArgs(), '--workers', '0'])).err).toMatch(/--workers must be an integer ≥ 1, got "0"/);
    expect((await runCli([...analyzeArgs(), '--curvature-probes', '1'])).err).toMatch(/--curvature-probes must be an integer ≥ 2, got "1"/);
    expect((await runCli([...analyzeArgs(), '--tool-call-format', 'yaml'])).err).toMatch(/--tool-call-format must be xml or json, got "yaml"/);
    expect((await runCli(['preview', analysis, '--override', 'attention3=1'])).err).toMatch(/--override must look like/);
    expect((await runCli(['merge', project.instruct, project.thinking, '--out', join(root, 'x'), '--method', 'aim'])).code).toBe(2);
    expect((await runCli(['merge', project.instruct, project.thinking, '--out', join(root, 'x'), '--dtype', 'f8'])).err).toMatch(/--dtype must be/);
    const missing = await runCli(['verify', join(root, 'nowhere'), '--alpha', '0.1']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/not an analysis folder made by `crane analyze`/);
    expect((await runCli(['analyze', '--help'])).out).toMatch(/Usage: crane analyze INSTRUCT THINKING/);
    const evalErrors = [
      [[...analyzeArgs(), '--eval-reasoning', project.evaluation.reasoning], /--eval-reasoning and --eval-tool-use go together/],
      [[...analyzeArgs(), '--held-out', '0.3', '--eval-reasoning', project.evaluation.reasoning, '--eval-tool-use', project.evaluation.agent], /--held-out and --eval-reasoning\/--eval-tool-use exclude each other/],
      [[...analyzeArgs(), '--held-out', '0.95'], /--held-out must be a share from 0 to 0\.9, got "0\.95"/],
      [['verify', analysis, '--on-calibration', '--eval-reasoning', project.evaluation.reasoning, '--eval-tool-use', project.evaluation.agent], /--on-calibration and --eval-reasoning\/--eval-tool-use exclude each other/],
    ] as const;
    for (const [args, message] of evalErrors) {
      const refused = await runCli(args);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.err).toMatch(message);
    }
  });
});
