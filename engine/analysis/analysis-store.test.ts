import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { ANALYSIS_FILES, loadAnalysis, writeAnalysis, type AnalysisArtifacts, type AnalysisKey } from './analysis-store.ts';
import { InstantPreview } from './preview.ts';
import { tinyAnalysis } from './testing/tiny-analysis.ts';

const { gate, projectors, coefficients } = tinyAnalysis(11);
const artifacts: AnalysisArtifacts = { gate, projectors, coefficients };
const key: AnalysisKey = { inputs: { instruct: 'aa11', thinking: 'bb22', reasoning: 'cc33' }, settings: { gsp: { maxRank: 256, radius: 3 }, heldOutFraction: 0.1 } };
const settings = { ...defaultResolvedSettings({ think: [], special: [] }), alpha: 0.4, tau: 0.05, granularity: 'fine' } as const;

async function written<T>(body: (dir: string) => Promise<T>): Promise<T> {
  return withTempDir(async (root) => {
    const dir = join(root, 'analysis');
    await writeAnalysis(dir, artifacts, key);
    return body(dir);
  });
}

async function editManifest(dir: string, change: (m: Record<string, unknown>) => void): Promise<void> {
  const path = join(dir, ANALYSIS_FILES.manifest);
  const manifest = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  change(manifest);
  await writeFile(path, JSON.stringify(manifest));
}

describe('analysis store', () => {
  it('round-trips gate table, projectors and coefficients bit for bit', () => written(async (dir) => {
    const loaded = await loadAnalysis(dir, { ...key, settings: { heldOutFraction: 0.1, gsp: { radius: 3, maxRank: 256 } } });
    if (loaded.state !== 'cached') throw new Error(`expected cached, got ${JSON.stringify(loaded)}`);
    const back = loaded.artifacts;
    expect([...back.gate.scores.keys()]).toEqual([...gate.scores.keys()]);
    for (const [k, score] of gate.scores) expect(back.gate.scores.get(k)).toEqual(score);
    expect([...back.projectors.keys()]).toEqual([...projectors.keys()]);
    for (const [k, p] of projectors) expect(back.projectors.get(k)).toEqual(p);
    expect(back.coefficients).toEqual(coefficients);
    expect(new InstantPreview(back.coefficients, back.gate).evaluate(settings)).toEqual(new InstantPreview(coefficients, gate).evaluate(settings));
    expect(loaded.manifest).toMatchObject({ format: 'crane-analysis', formatVersion: 1, inputs: key.inputs });
  }));

  it('writes the open gate-table fields and the spec projector keys', () => written(async (dir) => {
    const table = JSON.parse(await readFile(join(dir, ANALYSIS_FILES.gate), 'utf8')) as { blocks: Record<string, unknown>[] };
    expect(table.blocks.find((b) => b['key'] === 'ffn@1')).toMatchObject({ S: 1, layer: 1, group: 'ffn', block: null });
    expect(Object.keys(table.blocks.find((b) => b['key'] === 'attention@*') ?? {})).toEqual(expect.arrayContaining(['sum_p', 'sum_s_R', 'sum_s_A', 'theta_norm', 'S']));
    const header = await readFile(join(dir, ANALYSIS_FILES.projectors));
    const json = header.subarray(8, 8 + Number(header.readBigUInt64LE(0))).toString();
    expect(json).toContain('"layer_1_attn_input.V"');
    expect(json).toContain('"layer_0_ffn_input.sigma"');
  }));

  it('is missing where nothing was written', () => withTempDir(async (root) => {
    expect(await loadAnalysis(join(root, 'none'), key)).toEqual({ state: 'missing' });
  }));

  const staleCases: [string, (dir: string) => Promise<unknown>, AnalysisKey, RegExp][] = [
    ['an input hash differs', async () => undefined, { ...key, inputs: { ...key.inputs, thinking: 'ff99' } }, /input thinking: bb22 then, ff99 now/],
    ['an input is new', async () => undefined, { ...key, inputs: { ...key.inputs, format: 'dd44' } }, /input format: absent then/],
    ['the settings differ', async () => undefined, { ...key, settings: { gsp: { maxRank: 128, radius: 3 }, heldOutFraction: 0.1 } }, /settings changed/],
    ['the format version differs', (dir) => editManifest(dir, (m) => (m['formatVersion'] = 0)), key, /format version 0 ≠ 1/],
    ['the engine version differs', (dir) => editManifest(dir, (m) => (m['engineVersion'] = '0.0.0-old')), key, /engine 0.0.0-old/],
    ['an artifact was changed', (dir) => writeFile(join(dir, ANALYSIS_FILES.gate), '{}'), key, /gate-table.json changed/],
    ['an artifact is missing', (dir) => rm(join(dir, ANALYSIS_FILES.projectors)), key, /projectors.safetensors is missing/],
    ['the manifest is not JSON', (dir) => writeFile(join(dir, ANALYSIS_FILES.manifest), '{'), key, /not valid JSON/],
    ['the manifest has another shape', (dir) => editManifest(dir, (m) => (m['files'] = 'none')), key, /manifest\.json: is not an analysis manifest[\s\S]*files/],
  ];
  for (const [label, tamper, lookup, reason] of staleCases) {
    it(`is stale, never used, when ${label}`, () => written(async (dir) => {
      await tamper(dir);
      const loaded = await loadAnalysis(dir, lookup);
      expect(loaded.state).toBe('stale');
      expect(loaded.state === 'stale' ? loaded.reasons.join('\n') : '').toMatch(reason);
    }));
  }

  it('replaces an existing analysis atomically and leaves no temporary folder', () => written(async (dir) => {
    const other = tinyAnalysis(12);
    await writeAnalysis(dir, { gate: other.gate, projectors: other.projectors, coefficients: other.coefficients }, key);
    const loaded = await loadAnalysis(dir, key);
    expect(loaded.state === 'cached' ? loaded.artifacts.coefficients : undefined).toEqual(other.coefficients);
    expect(await readdir(join(dir, '..'))).toEqual(['analysis']);
  }));
});
