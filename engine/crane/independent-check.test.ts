/**
 * The engine against an independent float64 formulation (testing/reference-crane.ts) on a
 * tiny random pair: S_CTG of every block, every projector, every final tensor.
 */
import { describe, expect, it } from 'vitest';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { defaultSteepness, sigmoidWeights } from '../protocol/gsp-mask.ts';
import { craneEdit } from './crane-edit.ts';
import { GateAccumulator } from './gate-accumulator.ts';
import { computeGateTable } from './gate-scales.ts';
import { GramAccumulator } from './gram-accumulator.ts';
import { projectorFromGram, type GspProjector } from './gsp-projector.ts';
import { classifyTensor } from './tensor-classification.ts';
import { editPair } from './tensor-pair.ts';
import { applyProjector, Matrix, referenceGate, referenceProjector, referenceThreshold } from './testing/reference-crane.ts';
import { TINY_HIDDEN, tinyPair, type TinyTensor } from './testing/tiny-pair.ts';

const pair = tinyPair(2026);
const delta = (t: TinyTensor) => Array.from(t.thetaT, (v, i) => v - (t.thetaI[i] as number));

function engineAnalysis() {
  const acc = new GateAccumulator();
  for (const t of pair.tensors) {
    if (t.layer === null) continue;
    acc.add(classifyTensor(t.name), { thetaI: t.thetaI, delta: Float32Array.from(delta(t)), gradR: t.gradR, gradA: t.gradA });
  }
  const projectors = new Map<string, GspProjector>();
  for (const [key, rows] of pair.activations) {
    const gram = new GramAccumulator(TINY_HIDDEN);
    gram.addRows(rows);
    projectors.set(key, projectorFromGram(gram.gram(), TINY_HIDDEN));
  }
  return { gate: computeGateTable(acc.blocks(), 'ffn'), projectors };
}

/** The engine's removed part as an explicit matrix V diag(w) Vᵀ (independent of the basis chosen). */
function engineRemoval(p: GspProjector, tau: number): Matrix {
  const w = sigmoidWeights(p.sigma, tau);
  const m = new Matrix(p.dim);
  for (let i = 0; i < p.dim; i++) {
    for (let j = 0; j < p.dim; j++) {
      let sum = 0;
      for (let r = 0; r < p.rank; r++) sum += (w[r] as number) * (p.basis[i * p.rank + r] as number) * (p.basis[j * p.rank + r] as number);
      m.set(i, j, sum);
    }
  }
  return m;
}

describe('engine vs independent float64 formulation', () => {
  const { gate, projectors } = engineAnalysis();
  const scored = pair.tensors.filter((t) => t.layer !== null).map((t) => ({ group: t.group, layer: t.layer as number, thetaI: Array.from(t.thetaI), delta: delta(t), gradR: Array.from(t.gradR), gradA: Array.from(t.gradA) }));
  const referenceS = referenceGate(scored, 'ffn');

  it('agrees on S_CTG of every coarse block, per layer and global', () => {
    expect(referenceS.size).toBe(9); // {attention, ffn, norm} × {0, 1, *}
    for (const [key, value] of referenceS) expect(gate.scores.get(key)?.scale).toBeCloseTo(value, 12);
    expect([...referenceS.values()].some((v) => v !== 0 && v !== 1)).toBe(true);
  });

  for (const tau of [0.03, 0.5]) {
    it(`agrees on every projector V diag(w) Vᵀ at τ = ${tau}`, () => {
      for (const [key, rows] of pair.activations) {
        const reference = referenceProjector(Array.from(rows), TINY_HIDDEN, tau);
        const engine = engineRemoval(projectors.get(key) as GspProjector, tau);
        for (let i = 0; i < TINY_HIDDEN; i++) for (let j = 0; j < TINY_HIDDEN; j++) expect(engine.get(i, j)).toBeCloseTo((i === j ? 1 : 0) - reference.get(i, j), 6);
      }
    });

    it(`agrees on every final θ_M at τ = ${tau}, α = 0.25`, () => {
      const alpha = 0.25;
      const settings = { ...defaultResolvedSettings({ think: [4, 5], special: [1] }), alpha, tau, steepness: defaultSteepness(tau) };
      const edit = craneEdit(settings, { gate, projector: (key) => projectors.get(key) });
      for (const t of pair.tensors) {
        const engine = editPair({ name: t.name, instruct: { shape: t.shape, values: t.thetaI }, thinking: { shape: t.shape, values: t.thetaT } }, edit);
        const expected = referenceFinal(t, alpha, tau);
        engine.values.forEach((v, i) => expect(v, `${t.name}[${i}]`).toBeCloseTo(expected[i] as number, 5));
      }
    });
  }

  function referenceFinal(t: TinyTensor, alpha: number, tau: number): number[] {
    const d = delta(t);
    const thetaI = Array.from(t.thetaI);
    if (t.group === 'embed') return thetaI.map((v, i) => ([4, 5].includes(Math.floor(i / TINY_HIDDEN)) ? v + 0.8 * (d[i] as number) : v));
    if (t.group === 'lm_head') {
      return thetaI.map((v, i) => {
        const row = Math.floor(i / TINY_HIDDEN);
        return v + (row === 1 ? 0 : [4, 5].includes(row) ? 0.8 : 0.03) * (d[i] as number);
      });
    }
    const s = t.group === 'final_norm' ? (referenceS.get('norm@*') as number) : (referenceS.get(`${t.group}@${t.layer}`) as number);
    let change = referenceThreshold(d).map((x) => alpha * s * x);
    if (t.gsp !== null) {
      const rows = pair.activations.get(`layer_${t.layer}_${t.gsp}`) as Float32Array;
      change = applyProjector(change, referenceProjector(Array.from(rows), TINY_HIDDEN, tau));
    }
    return thetaI.map((v, i) => v + (change[i] as number));
  }
});
