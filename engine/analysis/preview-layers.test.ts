/**
 * The preview's cached paths against the plain formulation, on the tiny random pair:
 *   - LayerTerms against every entry's own Σ_i w_i·d_i with its S resolved by resolveScale (the
 *     per-entry form the grouped sums replace), to float rounding;
 *   - an InstantPreview taken through a long random walk of settings changes (α alone, τ/k,
 *     toggles, granularity, overrides, special strengths) against a fresh one per step, with a
 *     dense and a low-rank curvature: what a call answers does not depend on the calls before it.
 */
import { describe, expect, it } from 'vitest';
import { editDirections } from '../crane/edit-directions.ts';
import { resolveScale } from '../crane/gate-scales.ts';
import { uniformStream } from '../crane/tensor-random-stream.ts';
import { sigmoidWeights } from '../protocol/gsp-mask.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { factorDense } from './curvature-operator.ts';
import { InstantPreview, type PreviewResult, type PreviewSettings } from './preview.ts';
import type { PreviewCurvature } from './preview-curvature.ts';
import { LayerTerms } from './preview-layers.ts';
import { tinyAnalysis } from './testing/tiny-analysis.ts';
import { GRAD_A, GRAD_R, MOMENTS, NORM, RAW, THRESHOLDED } from './tensor-moments.ts';

const analysis = tinyAnalysis(2026);
const { coefficients, gate } = analysis;
const tokens = { think: [1, 4], special: [2, 5] };
const base: PreviewSettings = defaultResolvedSettings(tokens);
const GROUPS = ['attention', 'ffn', 'norm'];
const random = uniformStream(17, 'preview-layers');

/** Slopes per group, and per block α·S and the retained fraction, entry by entry. */
function perEntry(settings: PreviewSettings) {
  const kind = settings.stages.threshold ? THRESHOLDED : RAW;
  const slopes = new Map<string, [number, number]>();
  const blocks = new Map<string, { scaled: number; coordinates: number; norm: number; removed: number }>();
  for (const e of coefficients.entries) {
    const cls = { name: e.block, layer: e.layer, group: e.group, block: e.block, expert: null, gspKey: null, rule: 'crane' as const };
    const s = resolveScale(cls, settings.stages.gate ? gate : null, settings).value;
    const at = coefficients.entries.indexOf(e) * MOMENTS + kind;
    let [r, a, n] = [0, 0, 0];
    if (settings.stages.gsp && e.projector !== null) {
      const w = sigmoidWeights(coefficients.spectra.get(e.projector) as Float64Array, settings.tau, settings.steepness);
      for (let i = 0; i < e.rank; i++) {
        const d = (e.directionOffset + i) * MOMENTS + kind;
        r += (w[i] as number) * (coefficients.directions[d + GRAD_R] as number);
        a += (w[i] as number) * (coefficients.directions[d + GRAD_A] as number);
        n += (2 * (w[i] as number) - (w[i] as number) ** 2) * (coefficients.directions[d + NORM] as number);
      }
    }
    const slope = slopes.get(e.group) ?? [0, 0];
    slope[0] += s * ((coefficients.scalars[at + GRAD_R] as number) - r);
    slope[1] += s * ((coefficients.scalars[at + GRAD_A] as number) - a);
    slopes.set(e.group, slope);
    const key = `${e.group}${settings.granularity === 'fine' ? `.${e.block}` : ''}@${e.layer}`;
    const block = blocks.get(key) ?? { scaled: 0, coordinates: 0, norm: 0, removed: 0 };
    block.scaled += settings.alpha * s * e.coordinates;
    block.coordinates += e.coordinates;
    block.norm += coefficients.scalars[at + NORM] as number;
    block.removed += n;
    blocks.set(key, block);
  }
  return { slopes, blocks };
}

/** A random change of one kind of setting, as a slider or toggle makes it. */
function nextSettings(previous: PreviewSettings, blocks: readonly string[]): PreviewSettings {
  const pick = <T,>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  switch (pick(['alpha', 'alpha', 'tau', 'steepness', 'toggles', 'granularity', 'overrides', 'special'] as const)) {
    case 'alpha': return { ...previous, alpha: random() * 1.5 };
    case 'tau': return { ...previous, tau: 0.01 + random() * 0.5 };
    case 'steepness': return { ...previous, steepness: 2 + random() * 200 };
    case 'toggles': return { ...previous, stages: { threshold: random() < 0.7, gate: random() < 0.7, gsp: random() < 0.7 } };
    case 'granularity': return { ...previous, granularity: previous.granularity === 'fine' ? 'coarse' : 'fine' };
    case 'overrides': return { ...previous, overrideScales: Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [pick([...blocks, 'norm@*', 'attention@*']), random() * 2])) };
    case 'special': return { ...previous, special: { ...previous.special, thinkRows: random(), lmHeadScale: random() * 0.1 } };
  }
}

/** Relative to the size of what is compared: the cached and fresh paths sum in the same order, or differ by rounding. */
function expectClose(actual: number, expected: number, scale: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(scale)));
}

function expectSameResult(result: PreviewResult, fresh: PreviewResult): void {
  expectClose(result.deltaLossReasoning, fresh.deltaLossReasoning, fresh.deltaLossReasoning);
  expectClose(result.deltaLossAgent, fresh.deltaLossAgent, fresh.deltaLossAgent);
  expect(result.breakdown.map((t) => t.group)).toEqual(fresh.breakdown.map((t) => t.group));
  result.breakdown.forEach((t, i) => {
    const f = fresh.breakdown[i] as PreviewResult['breakdown'][number];
    for (const loss of ['reasoning', 'agent'] as const) {
      expectClose(t.firstOrder[loss], f.firstOrder[loss], f.firstOrder[loss]);
      expectClose(t.secondOrder[loss], f.secondOrder[loss], f.secondOrder[loss]);
    }
  });
  result.curve.deltaLossReasoning.forEach((v, i) => expectClose(v, fresh.curve.deltaLossReasoning[i] as number, v));
  result.curve.deltaLossAgent.forEach((v, i) => expectClose(v, fresh.curve.deltaLossAgent[i] as number, v));
  expect(result.blocks).toEqual(fresh.blocks);
  result.effectiveScale.forEach((v, i) => expectClose(v, fresh.effectiveScale[i] as number, v));
  result.retainedFraction.forEach((v, i) => expectClose(v, fresh.retainedFraction[i] as number, 1));
}

describe('LayerTerms (grouped by projector, cached per kind of change)', () => {
  const layers = new LayerTerms(coefficients, gate, (group) => GROUPS.indexOf(group), GROUPS.length);

  it('equals the per-entry formulation along a random walk of settings', () => {
    let settings = base;
    let checked = 0;
    for (let step = 0; step < 120; step++) {
      settings = nextSettings(settings, layers.fineBlocks);
      if (settings.stages.threshold && settings.keepQuantile !== coefficients.keepQuantile) continue;
      const result = layers.evaluate(settings);
      const expected = perEntry(settings);
      for (const [group, [r, a]] of expected.slopes) {
        const g = GROUPS.indexOf(group);
        expectClose(result.groupSlope[2 * g] as number, r, r);
        expectClose(result.groupSlope[2 * g + 1] as number, a, a);
      }
      const keys = settings.granularity === 'fine' ? layers.fineBlocks : layers.coarseBlocks;
      expect(keys).toHaveLength(expected.blocks.size);
      keys.forEach((key, b) => {
        const block = expected.blocks.get(key);
        if (block === undefined) throw new Error(`no block ${key}`);
        expectClose(result.effectiveScale[b] as number, block.scaled / block.coordinates, 1);
        expectClose(result.retainedFraction[b] as number, block.norm > 0 ? (block.norm - block.removed) / block.norm : 1, 1);
      });
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('refuses an entry whose direction count differs from its projector\'s spectrum', () => {
    const [first] = coefficients.entries.filter((e) => e.projector !== null);
    if (first === undefined) throw new Error('the tiny analysis has projected entries');
    const broken = { ...coefficients, entries: coefficients.entries.map((e) => (e === first ? { ...e, rank: e.rank - 1 } : e)) };
    expect(() => new LayerTerms(broken, gate, (group) => GROUPS.indexOf(group), GROUPS.length)).toThrow(/directions for a spectrum of/);
  });
});

describe('InstantPreview: the answer does not depend on the calls before it', () => {
  const basis = editDirections(analysis.pair.tensors.map((t) => t.name), base, tokens, { gate, projector: (key) => analysis.projectors.get(key) });
  const B = basis.directions.length;
  const symmetric = () => {
    const m = new Array<number>(B * B).fill(0);
    for (let i = 0; i < B; i++) for (let j = 0; j <= i; j++) m[i * B + j] = m[j * B + i] = random() * 2 - 1;
    return m;
  };
  const hessian = { reasoning: symmetric(), agent: symmetric() };
  const dense: PreviewCurvature = {
    basis: { keepQuantile: base.keepQuantile, tau: base.tau, steepness: base.steepness, threshold: true, gsp: true },
    anchorSpecial: base.special,
    directions: basis.directions,
    epsilon: new Array<number>(B).fill(0.25),
    firstOrder: { reasoning: Array.from({ length: B }, () => random() - 0.5), agent: Array.from({ length: B }, () => random() - 0.5) },
    hessian,
    routers: [],
    anchors: [{ alpha: 0.25, measured: { reasoning: -0.1, agent: 1e-4 } }],
    split: 'train',
  };
  const lowRank: PreviewCurvature = { ...dense, hessian: undefined, lowRank: { reasoning: factorDense(hessian.reasoning, B, 3), agent: factorDense(hessian.agent, B, 3) } };

  for (const [label, curvature] of [['dense curvature', dense], ['low-rank curvature', lowRank], ['no curvature', undefined]] as const) {
    it(`${label}: each step of a random walk equals a fresh preview's answer`, () => {
      const preview = new InstantPreview(coefficients, gate, curvature);
      let settings = base;
      for (let step = 0; step < 80; step++) {
        settings = nextSettings(settings, preview.fineBlocks);
        if (settings.stages.threshold && settings.keepQuantile !== coefficients.keepQuantile) continue;
        expectSameResult(preview.evaluate(settings), new InstantPreview(coefficients, gate, curvature).evaluate(settings));
      }
    });
  }
});
