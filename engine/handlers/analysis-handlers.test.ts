/**
 * The engine handlers end to end on a tiny random pair: open a project, open the pair, analyze
 * (events, cache), then every view — gate metrics, preview, spectrum, inspectLayer — checked
 * against the engine functions they wrap, and the cache surviving a new session.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { craneDelta } from '../crane/crane-edit.ts';
import { classifyTensor } from '../crane/tensor-classification.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { DEFAULT_CRANE_SETTINGS } from '../protocol/settings-defaults.ts';
import { initBackend } from '../tensor/backend.ts';
import { createEngineHandlers } from './engine-handlers.ts';
import { resolveCraneSettings } from './edit-settings.ts';
import { EngineSession } from './engine-session.ts';
import { call, harness, recordingContext, type Harness } from './testing/handler-harness.ts';

let h: Harness;
const settings = DEFAULT_CRANE_SETTINGS;

beforeAll(async () => {
  await initBackend('wasm');
  h = await harness(await mkdtemp(join(tmpdir(), 'crane-handlers-')));
  await call(h, 'openProject', { projectDir: h.projectDir });
  await call(h, 'openPair', { instruct: h.instruct, thinking: h.thinking });
}, 60_000);

afterAll(async () => {
  if (h !== undefined) await rm(h.root, { recursive: true, force: true });
});

const codeOf = (promise: Promise<unknown>) => promise.then(() => 'ok', (error: { code?: string }) => error.code);

describe('analysis handlers', () => {
  it('views refuse with not-found before the analysis exists', async () => {
    expect(await codeOf(call(h, 'getGateMetrics', { granularity: 'coarse' }))).toBe('not-found');
    expect(await codeOf(call(h, 'preview', { settings, alphas: [] }))).toBe('not-found');
  });

  it('analyze runs every stage with progress and stageDone events, then reports them cached', async () => {
    const ctx = recordingContext();
    const summary = await call(h, 'analyze', { projectDir: h.projectDir, settings: h.settings.analysis }, ctx);
    expect(summary.stages.map((s) => s.stage)).toEqual(['targets', 'projectors', 'gradients', 'gates', 'curvature']);
    expect(summary.stages.every((s) => !s.cached)).toBe(true);
    expect(ctx.of('progress').length).toBeGreaterThan(0);
    expect(ctx.of('progress').every((p) => p.requestId === ctx.requestId && p.fraction >= 0 && p.fraction <= 1)).toBe(true);
    expect(ctx.of('stageDone').map((e) => e.stage)).toContain('gates');
    const state = await call(h, 'getProjectState', {});
    expect(state?.stages.every((s) => s.state === 'cached')).toBe(true);
    const again = await call(h, 'analyze', { projectDir: h.projectDir, settings: h.settings.analysis });
    expect(again.stages.every((s) => s.cached)).toBe(true);
  }, 120_000);

  it('getGateMetrics lays the gate table out as layers × columns, coarse and fine', async () => {
    const coarse = await call(h, 'getGateMetrics', { granularity: 'coarse' });
    expect(coarse.layers).toBe(2);
    expect(coarse.groups).toEqual(['attention', 'ffn', 'norm']);
    const ffn = coarse.groups.indexOf('ffn');
    for (let l = 0; l < coarse.layers; l++) expect(coarse.gate.values[l * coarse.groups.length + ffn]).toBe(1);
    const { artifacts } = await h.session.analysis();
    const attention1 = artifacts.gate.scores.get('attention@1');
    expect(coarse.gate.values[1 * 3]).toBeCloseTo(attention1?.scale ?? Number.NaN, 5);
    expect(coarse.sumReasoning.values[1 * 3]).toBeCloseTo(attention1?.sums.reasoning ?? Number.NaN, 5);
    expect(coarse.relativeDelta.values[1 * 3]).toBeCloseTo((attention1?.deltaNorm ?? 0) / (attention1?.thetaNorm ?? 1), 5);
    const fine = await call(h, 'getGateMetrics', { granularity: 'fine' });
    expect(fine.groups).toEqual(expect.arrayContaining(['q', 'k', 'v', 'o', 'gate', 'up', 'down', 'input_norm', 'post_norm']));
    expect(fine.gate.values.length).toBe(2 * fine.groups.length);
  });

  it('preview is InstantPreview on the heatmap cells, with the retained norm as a plain ratio', async () => {
    const preview = await call(h, 'preview', { settings, alphas: [0, 0.5, 1] });
    const { preview: instant } = await h.session.analysis();
    const resolved = resolveCraneSettings(settings, null, { think: [], special: [] });
    const expected = instant.evaluate(resolved);
    expect(preview.deltaLossReasoning).toBeCloseTo(expected.deltaLossReasoning, 9);
    expect(preview.deltaLossAgent).toBeCloseTo(expected.deltaLossAgent, 9);
    expect(preview.breakdown).toEqual(expected.breakdown);
    expect(Array.from(preview.curve.deltaLossReasoning)[2]).toBeCloseTo(instant.evaluate({ ...resolved, alpha: 1 }).deltaLossReasoning, 5);
    const at = expected.blocks.indexOf('attention@0');
    expect(preview.retainedNorm.values[0]).toBeCloseTo(Math.sqrt(expected.retainedFraction[at] as number), 5);
    expect(preview.effectiveScale.values[0]).toBeCloseTo(expected.effectiveScale[at] as number, 5);
    const doubled = await call(h, 'preview', { settings: { ...settings, alpha: 2 * settings.alpha }, alphas: [] });
    expect(doubled.deltaLossReasoning).toBeCloseTo(instant.evaluate({ ...resolved, alpha: 2 * settings.alpha }).deltaLossReasoning, 9);
    expect(await codeOf(call(h, 'preview', { settings: { ...settings, keepQuantile: 0.7 }, alphas: [] }))).toBe('invalid-params');
  });

  it('a lock zeroes a block in the preview, an override sets its scale', async () => {
    const locked = await call(h, 'preview', { settings: { ...settings, overrides: [{ block: { layer: 0, group: 'attention' }, gate: null, locked: true }] }, alphas: [] });
    expect(locked.effectiveScale.values[0]).toBe(0);
    const set = await call(h, 'preview', { settings: { ...settings, overrides: [{ block: { layer: 1, group: 'q' }, gate: 3, locked: false }] }, alphas: [] });
    const fine = await call(h, 'preview', { settings: { ...settings, granularity: 'fine', overrides: [{ block: { layer: 1, group: 'q' }, gate: 3, locked: false }] }, alphas: [] });
    const metrics = await call(h, 'getGateMetrics', { granularity: 'fine' });
    const cols = metrics.groups.length;
    expect(fine.effectiveScale.values[cols + metrics.groups.indexOf('q')]).toBeCloseTo(3 * settings.alpha, 6);
    expect(set.deltaLossReasoning).not.toBe((await call(h, 'preview', { settings, alphas: [] })).deltaLossReasoning);
  });

  it('spectrum gives σ/σ₁ and a retained fraction that is 1 when the mask removes nothing and falls as τ falls', async () => {
    const s = await call(h, 'spectrum', { layer: 1, key: 'ffn_input', tau: 0.03, steepness: 4.6 / 0.03 });
    expect(s.sigmaRatio[0]).toBeCloseTo(1, 6);
    expect(Array.from(s.sigmaRatio)).toEqual(Array.from(s.sigmaRatio).sort((a, b) => b - a));
    expect(s.retainedFraction).toBeLessThan(1);
    const nothingRemoved = await call(h, 'spectrum', { layer: 1, key: 'ffn_input', tau: 10, steepness: 100 });
    expect(nothingRemoved.retainedFraction).toBeCloseTo(1, 9);
    const strict = await call(h, 'spectrum', { layer: 1, key: 'ffn_input', tau: 0.001, steepness: 4.6 / 0.001 });
    expect(strict.retainedFraction).toBeLessThanOrEqual(s.retainedFraction + 1e-9);
    expect(await codeOf(call(h, 'spectrum', { layer: 9, key: 'ffn_input', tau: 0.03, steepness: 1 }))).toBe('not-found');
  });

  it('inspectLayer shows a block with the edit craneDelta makes, before and after projection', async () => {
    const view = await call(h, 'inspectLayer', { block: { layer: 1, group: 'ffn' }, method: { method: 'crane', settings }, bins: 8, mapSize: 4 });
    expect(view.tensors.map((t) => t.name).sort()).toEqual(['model.layers.1.mlp.down_proj.weight', 'model.layers.1.mlp.gate_proj.weight', 'model.layers.1.mlp.up_proj.weight']);
    const gate = view.tensors.find((t) => t.name.endsWith('gate_proj.weight'));
    expect(gate?.keptFraction).toBeCloseTo(0.5, 2);
    const instruct = await Checkpoint.open(h.instruct);
    const thinking = await Checkpoint.open(h.thinking);
    try {
      const name = 'model.layers.1.mlp.gate_proj.weight';
      const { artifacts, columns } = await h.session.analysis();
      const crane = resolveCraneSettings(settings, columns, await h.session.tokenRows());
      const shape = instruct.tensors.get(name)?.shape ?? [];
      const delta = craneDelta(classifyTensor(name), shape, await instruct.readFloat32(name), await thinking.readFloat32(name), crane, { gate: artifacts.gate, projector: (k) => artifacts.projectors.get(k) }).delta;
      const norm = Math.sqrt(delta.reduce((a, v) => a + v * v, 0));
      const map = gate?.deltaMap.after;
      expect(map?.rows).toBe(4);
      // Mean |Δ| over the map's cells equals mean |Δ| when the cells are equal in size.
      const meanAbs = delta.reduce((a, v) => a + Math.abs(v), 0) / delta.length;
      expect((map?.values.reduce((a, v) => a + v, 0) ?? 0) / (map?.values.length ?? 1)).toBeCloseTo(meanAbs, 5);
      expect(norm).toBeGreaterThan(0);
      expect(gate?.deltaMap.before.values).not.toEqual(gate?.deltaMap.after.values);
    } finally {
      await Promise.all([instruct.close(), thinking.close()]);
    }
    const ta = await call(h, 'inspectLayer', { block: { layer: 0, group: 'q' }, method: { method: 'task_arithmetic', lambda: 0.3 }, bins: 8, mapSize: 4 });
    expect(ta.tensors.map((t) => t.name)).toEqual(['model.layers.0.self_attn.q_proj.weight']);
    expect(ta.tensors[0]?.keptFraction).toBe(1);
  });

  it('a new session reopening the project restores its settings and cached analysis', async () => {
    await call(h, 'saveProject', { projectDir: h.projectDir, project: { instruct: h.instruct, thinking: h.thinking, analysis: h.settings.analysis, settings: { ...settings, alpha: 0.4 }, verified: [] } });
    const fresh = createEngineHandlers({ session: new EngineSession() });
    const reopened = await fresh.openProject({ projectDir: h.projectDir }, recordingContext());
    expect(reopened.project.settings.alpha).toBe(0.4);
    expect(reopened.stages.every((s) => s.state === 'cached')).toBe(true);
    expect((await fresh.getGateMetrics({ granularity: 'coarse' }, recordingContext())).layers).toBe(2);
  });
});
