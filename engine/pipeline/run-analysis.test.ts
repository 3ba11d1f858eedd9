/**
 * The pipeline end to end against a direct computation with the engine's own stage functions:
 * gradients from ONE whole-graph tf.grads pass over EVERY sequence of each calibration set (the
 * default holds none out; not the layer-wise, batched, disk-streamed route the pipeline takes),
 * activations captured in one pass, then GateAccumulator / computeGateTable / projectorFromGram /
 * PreviewCoefficientBuilder.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestTokenizer } from '../calibration/testing/fixture.ts';
import { PreviewCoefficientBuilder } from '../analysis/preview-coefficients.ts';
import { GateAccumulator } from '../crane/gate-accumulator.ts';
import { computeGateTable } from '../crane/gate-scales.ts';
import { GramAccumulator } from '../crane/gram-accumulator.ts';
import { projectorFromGram } from '../crane/gsp-projector.ts';
import { classifyTensor, projectorKey } from '../crane/tensor-classification.ts';
import { taskVector } from '../crane/tensor-pair.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { wholeGraphGrads } from '../model/testing/whole-graph.ts';
import { initBackend } from '../tensor/backend.ts';
import { readSequences } from './calibration-sequences.ts';
import { pipelinePaths } from './pipeline-folder.ts';
import { analysedProject, type AnalysedProject } from './testing/analysed-project.ts';

let project: AnalysedProject;

beforeAll(async () => {
  await initBackend('wasm');
  project = await analysedProject(await mkdtemp(join(tmpdir(), 'crane-pipeline-')));
});

afterAll(() => rm(project.root, { recursive: true, force: true }));

async function direct(p: AnalysedProject) {
  const sequences = await readSequences(pipelinePaths(p.outDir).sequences);
  const instruct = await Checkpoint.open(p.instruct);
  const thinking = await Checkpoint.open(p.thinking);
  try {
    const model = loadCausalLM(instruct);
    const everySequence = (set: string) => sequences.filter((s) => s.set === set).map((s) => ({ ids: s.ids, targets: s.lossMask ?? [] }));
    const gR = (await wholeGraphGrads(instruct, model.spec, everySequence('reasoning'))).grads;
    const gA = (await wholeGraphGrads(instruct, model.spec, everySequence('agent'))).grads;
    const grams = new Map<string, GramAccumulator>();
    const format = sequences.filter((s) => s.set === 'format').map((s) => ({ ids: s.ids, positions: s.formatPositions as number[] }));
    await model.captureActivations(format, (a) => {
      for (const [key, rows] of [['attn_input', a.attnInput], ['ffn_input', a.ffnInput]] as const) {
        const name = projectorKey(a.layer, key);
        if (!grams.has(name)) grams.set(name, new GramAccumulator(model.spec.hiddenSize));
        grams.get(name)?.addRows(rows);
      }
    });
    const projectors = new Map([...grams].map(([k, g]) => [k, projectorFromGram(g.gram(), model.spec.hiddenSize, { maxRank: 8 })]));
    const gate = new GateAccumulator();
    const builder = new PreviewCoefficientBuilder(0.5, (k) => project.run.artifacts.projectors.get(k));
    for (const [name, info] of instruct.tensors) {
      const tensor = classifyTensor(name);
      if (tensor.layer === null) continue;
      const thetaI = await instruct.readFloat32(name);
      const delta = taskVector(thetaI, await thinking.readFloat32(name));
      const [gradR, gradA] = [gR.get(name) as Float32Array, gA.get(name) as Float32Array];
      gate.add(tensor, { thetaI, delta, gradR, gradA });
      builder.add(tensor, info.shape, { delta, gradR, gradA });
    }
    return { gate: computeGateTable(gate.blocks(), 'ffn'), projectors, coefficients: builder.build() };
  } finally {
    await instruct.close();
    await thinking.close();
  }
}

describe('runAnalysis on a tiny pair', () => {
  it('gives the S_CTG, projectors and preview coefficients of a direct whole-graph computation', async () => {
    const expected = await direct(project);
    const { gate, projectors, coefficients } = project.run.artifacts;
    expect([...gate.scores.keys()].sort()).toEqual([...expected.gate.scores.keys()].sort());
    for (const [key, score] of expected.gate.scores) {
      const got = gate.scores.get(key);
      expect(Math.abs((got?.scale ?? NaN) - score.scale), key).toBeLessThan(1e-3 * Math.max(1, Math.abs(score.scale)));
      expect(got?.sums.thetaSquared).toBe(score.sums.thetaSquared);
      expect(Math.abs((got?.sums.reasoning ?? NaN) - score.sums.reasoning)).toBeLessThan(1e-4 * score.sums.totalMass + 1e-9);
    }
    expect(gate.reference).toBe('ffn');
    expect([...projectors.keys()].sort()).toEqual([...expected.projectors.keys()].sort());
    for (const [key, p] of expected.projectors) {
      const got = projectors.get(key);
      expect(got?.rank, key).toBe(p.rank);
      p.sigma.forEach((s, i) => expect(Math.abs((got?.sigma[i] ?? NaN) - s)).toBeLessThan(1e-9 * (p.sigma[0] ?? 1)));
      // Directions up to sign: the leading direction is well separated on every layer here.
      let dot = 0;
      for (let j = 0; j < p.dim; j++) dot += (p.basis[j * p.rank] as number) * (got?.basis[j * p.rank] as number);
      expect(Math.abs(dot), key).toBeCloseTo(1, 5);
    }
    expect(coefficients.entries).toEqual(expected.coefficients.entries);
    const scale = expected.coefficients.scalars.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    coefficients.scalars.forEach((v, i) => expect(Math.abs(v - (expected.coefficients.scalars[i] as number))).toBeLessThan(1e-4 * scale));
  });

  it('decodes missing targets, keeps given ones, holds nothing out by default and masks only assistant tokens', async () => {
    const sequences = await readSequences(pipelinePaths(project.outDir).sequences);
    const reasoning = sequences.filter((s) => s.set === 'reasoning');
    expect(reasoning.map((s) => s.target)).toEqual(['decoded', 'given', 'decoded', 'decoded']);
    expect(sequences.map((s) => s.split)).toEqual(sequences.map(() => 'train'));
    expect(sequences.filter((s) => s.set !== 'format')).toHaveLength(4 + 3);
    const imEnd = (await loadTestTokenizer()).requireTokenId('<|im_end|>');
    for (const s of sequences.filter((x) => x.set !== 'format')) {
      const mask = s.lossMask as number[];
      const [first, last] = [mask.indexOf(1), mask.lastIndexOf(1)];
      // Targets are one contiguous run, the assistant turn, ending with its end-of-turn token.
      expect(first).toBeGreaterThan(0);
      expect(mask.slice(first, last + 1).every((m) => m === 1)).toBe(true);
      expect(s.ids[last]).toBe(imEnd);
    }
    const format = sequences.filter((s) => s.set === 'format');
    expect(format.every((s) => (s.formatPositions?.length ?? 0) > 0)).toBe(true);
    const cache = await readFile(pipelinePaths(project.outDir).decodeCache, 'utf8');
    expect(cache.trim().split('\n')).toHaveLength(3 + 3);
  });
});
