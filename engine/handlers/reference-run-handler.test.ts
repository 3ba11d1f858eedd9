/**
 * openReferenceRun through the handler map on the tiny pair: the project's own analysis written
 * in the reference's formats and opened back gives the same heatmap; the preview refuses with the
 * reason instead of answering zeros; the spectrum still works; a folder without the reference's
 * files is refused; the next Analyze recomputes the gate rather than reusing the imported one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportReferenceRun } from '../pipeline/reference-run.ts';
import { projectPaths } from '../project/project-layout.ts';
import { DEFAULT_CRANE_SETTINGS } from '../protocol/settings-defaults.ts';
import { initBackend } from '../tensor/backend.ts';
import { call, harness, type Harness } from './testing/handler-harness.ts';

let h: Harness;
let runDir: string;

beforeAll(async () => {
  await initBackend('wasm');
  h = await harness(await mkdtemp(join(tmpdir(), 'crane-reference-handler-')));
  await call(h, 'openProject', { projectDir: h.projectDir });
  await call(h, 'openPair', { instruct: h.instruct, thinking: h.thinking });
  await call(h, 'analyze', { projectDir: h.projectDir, settings: h.settings.analysis });
  runDir = join(h.root, 'reference-run');
  await exportReferenceRun(projectPaths(h.projectDir).analysis, runDir);
}, 120_000);

afterAll(async () => {
  if (h !== undefined) await rm(h.root, { recursive: true, force: true });
});

const preview = () => call(h, 'preview', { settings: DEFAULT_CRANE_SETTINGS, alphas: [0.5] });

describe('openReferenceRun', () => {
  it('opens a run folder as the analysis: the same heatmap, and a preview that says it needs gradients', async () => {
    const computed = await call(h, 'getGateMetrics', { granularity: 'fine' });
    expect((await preview()).curve.alphas).toHaveLength(1);
    const summary = await call(h, 'openReferenceRun', { projectDir: h.projectDir, source: runDir, projectors: null, projectorsLinattn: null });
    expect(summary.files).toEqual([join(runDir, 'phase2_stats.json'), join(runDir, 'format_projectors.pt')]);
    expect(summary.projectors).toBe(4);
    const imported = await call(h, 'getGateMetrics', { granularity: 'fine' });
    expect(imported.groups).toEqual(computed.groups);
    expect(imported.gate.values).toEqual(computed.gate.values);
    await expect(preview()).rejects.toMatchObject({ code: 'invalid-params', message: expect.stringMatching(/needs gradients — this analysis was imported from a reference run/) as unknown });
    await expect(call(h, 'verify', { method: { method: 'crane', settings: DEFAULT_CRANE_SETTINGS } }))
      .rejects.toMatchObject({ message: expect.stringContaining('imported from a reference run') as unknown });
    const spectrum = await call(h, 'spectrum', { layer: 0, key: 'ffn_input', tau: 0.03, steepness: 4.6 / 0.03 });
    expect(spectrum.sigmaRatio[0]).toBe(1);
  });

  it('takes the stats and projector files by name too, and refuses a folder without them', async () => {
    const files = { source: join(runDir, 'phase2_stats.json'), projectors: join(runDir, 'format_projectors.pt'), projectorsLinattn: null };
    const summary = await call(h, 'openReferenceRun', { projectDir: h.projectDir, ...files });
    expect(summary.gateBlocks).toBeGreaterThan(0);
    await expect(call(h, 'openReferenceRun', { projectDir: h.projectDir, source: h.root, projectors: null, projectorsLinattn: null }))
      .rejects.toMatchObject({ message: expect.stringContaining('phase2_stats.json') as unknown });
  });

  it('the next Analyze recomputes the gate from gradients and the preview answers again', async () => {
    const summary = await call(h, 'analyze', { projectDir: h.projectDir, settings: h.settings.analysis });
    expect(summary.stages.find((s) => s.stage === 'gates')?.cached).toBe(false);
    expect((await preview()).curve.alphas).toHaveLength(1);
  }, 120_000);
});
