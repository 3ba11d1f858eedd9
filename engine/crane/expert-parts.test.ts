/**
 * A fused expert tensor is edited and scored as the per-expert tensors it stores: the same gate
 * blocks (S per expert), and the same merged weights once the per-expert results are fused the
 * way transformers v5 stores them ([E, 2I, H] gate rows then up rows; [E, H, I]).
 */
import { describe, expect, it } from 'vitest';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { SeededRandom } from '../protocol/seeded-random.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { craneDelta, craneEdit, type CraneContext } from './crane-edit.ts';
import { expertParts, partOf } from './expert-parts.ts';
import { GateAccumulator } from './gate-accumulator.ts';
import { computeGateTable } from './gate-scales.ts';
import type { GspProjector } from './gsp-projector.ts';
import { classifyTensor } from './tensor-classification.ts';

const LAYER = 'model.layers.2.';
const [EXPERTS, INNER, HIDDEN] = [3, 2, 4];
const PROJECTIONS = ['gate_proj', 'up_proj', 'down_proj'] as const;
type Projection = (typeof PROJECTIONS)[number];
const perExpertName = (e: number, p: Projection) => `${LAYER}mlp.experts.${e}.${p}.weight`;
const perExpertShape = (p: Projection) => (p === 'down_proj' ? [HIDDEN, INNER] : [INNER, HIDDEN]);
const GATE_UP = `${LAYER}mlp.experts.gate_up_proj`;
const DOWN = `${LAYER}mlp.experts.down_proj`;
const FUSED_SHAPES = new Map([[GATE_UP, [EXPERTS, 2 * INNER, HIDDEN]], [DOWN, [EXPERTS, HIDDEN, INNER]]]);

/** One side's per-expert weights (θ or a gradient), seeded. */
function sideOf(seed: number): Map<string, Float32Array> {
  const rng = new SeededRandom(seed);
  const side = new Map<string, Float32Array>();
  for (let e = 0; e < EXPERTS; e++) for (const p of PROJECTIONS) side.set(perExpertName(e, p), rng.normals(INNER * HIDDEN, 0.5));
  return side;
}

/** The fused pair, laid out as transformers v5 saves it. */
function fused(side: ReadonlyMap<string, Float32Array>): Map<string, Float32Array> {
  const concat = (names: string[]) => Float32Array.from(names.flatMap((n) => Array.from(side.get(n) as Float32Array)));
  const experts = Array.from({ length: EXPERTS }, (_, e) => e);
  return new Map([
    [GATE_UP, concat(experts.flatMap((e) => [perExpertName(e, 'gate_proj'), perExpertName(e, 'up_proj')]))],
    [DOWN, concat(experts.map((e) => perExpertName(e, 'down_proj')))],
  ]);
}

const thetaI = sideOf(1);
const thetaT = new Map([...sideOf(2)].map(([name, noise]) => [name, (thetaI.get(name) as Float32Array).map((v, i) => v + 0.1 * (noise[i] as number))]));
const gradR = sideOf(3);
const gradA = sideOf(4);

describe('expertParts', () => {
  it('splits gate_up into each expert\'s gate then up, and down per expert, classified as the per-expert layout', () => {
    const parts = expertParts(classifyTensor(GATE_UP), [EXPERTS, 2 * INNER, HIDDEN]);
    expect(parts.map((p) => [p.tensor.name, p.offset, p.length])).toEqual(
      Array.from({ length: EXPERTS }, (_, e) => [[perExpertName(e, 'gate_proj'), 2 * e * 8, 8], [perExpertName(e, 'up_proj'), (2 * e + 1) * 8, 8]]).flat(),
    );
    expect(parts[3]?.tensor).toMatchObject({ layer: 2, group: 'expert', block: 'up', expert: 1, gspKey: 'ffn_input' });
    expect(expertParts(classifyTensor(DOWN), [EXPERTS, HIDDEN, INNER])[2]).toMatchObject({ shape: [HIDDEN, INNER], offset: 16, tensor: { expert: 2, block: 'down', gspKey: null } });
  });

  it('leaves any other tensor whole, and partOf hands back the array itself', () => {
    const q = classifyTensor(`${LAYER}self_attn.q_proj.weight`);
    const values = new Float32Array(8);
    const [whole] = expertParts(q, [2, 4]);
    expect(whole).toEqual({ tensor: q, shape: [2, 4], offset: 0, length: 8 });
    expect(partOf(values, whole as NonNullable<typeof whole>)).toBe(values);
  });

  it('refuses a fused tensor of another rank, naming it', () => {
    expect(() => expertParts(classifyTensor(GATE_UP), [EXPERTS * 2 * INNER, HIDDEN])).toThrow(/model\.layers\.2\.mlp\.experts\.gate_up_proj: a fused expert tensor is \[experts, 2·inner, hidden\], not \[12, 4\]/);
  });
});

describe('both expert layouts, one edit', () => {
  const perExpertGate = new GateAccumulator();
  for (const [name, values] of thetaI) {
    const delta = (thetaT.get(name) as Float32Array).map((v, i) => v - (values[i] as number));
    perExpertGate.add(classifyTensor(name), { thetaI: values, delta, gradR: gradR.get(name) as Float32Array, gradA: gradA.get(name) as Float32Array });
  }
  const fusedGate = new GateAccumulator();
  const [fI, fT, fR, fA] = [thetaI, thetaT, gradR, gradA].map(fused) as Map<string, Float32Array>[];
  for (const [name, shape] of FUSED_SHAPES) {
    const theta = fI?.get(name) as Float32Array;
    const delta = (fT?.get(name) as Float32Array).map((v, i) => v - (theta[i] as number));
    for (const part of expertParts(classifyTensor(name), shape)) {
      fusedGate.add(part.tensor, { thetaI: partOf(theta, part), delta: partOf(delta, part), gradR: partOf(fR?.get(name) as Float32Array, part), gradA: partOf(fA?.get(name) as Float32Array, part) });
    }
  }
  const table = computeGateTable(perExpertGate.blocks(), 'expert');
  const fusedTable = computeGateTable(fusedGate.blocks(), 'expert');
  // A rank-2 format subspace of the layer's post-attention-norm output.
  const projector: GspProjector = { dim: HIDDEN, rank: 2, basis: Float32Array.of(0.6, 0, 0.8, 0, 0, 1, 0, 0), sigma: Float64Array.of(1, 0.5) };
  const context = (gate: typeof table): CraneContext => ({ gate, projector: (key) => (key === 'layer_2_ffn_input' ? projector : undefined) });
  const settings: ResolvedCraneSettings = { ...defaultResolvedSettings({ think: [], special: [] }), alpha: 0.7, granularity: 'fine' };

  it('scores the same S per expert', () => {
    for (let e = 0; e < EXPERTS; e++) {
      const want = table.scores.get(`expert.${e}@2`);
      expect(want?.sums.count).toBe(3 * INNER * HIDDEN);
      expect(fusedTable.scores.get(`expert.${e}@2`)?.scale).toBeCloseTo(want?.scale ?? NaN, 12);
    }
    expect(new Set([0, 1, 2].map((e) => table.scores.get(`expert.${e}@2`)?.scale)).size).toBe(EXPERTS);
    expect(fusedTable.scores.has('expert.gate_up@2')).toBe(false);
  });

  for (const handedOver of [false, true]) {
    it(`merges to the same weights once fused (θ_T handed over: ${handedOver})`, () => {
      const perExpertEdit = craneEdit(settings, context(table));
      const merged = new Map([...thetaI].map(([name, values]) => {
        const shape = perExpertShape(name.endsWith('down_proj.weight') ? 'down_proj' : 'gate_proj');
        return [name, perExpertEdit(name, shape, values, Float32Array.from(thetaT.get(name) as Float32Array)).values];
      }));
      const fusedEdit = craneEdit(settings, context(fusedTable));
      for (const [name, shape] of FUSED_SHAPES) {
        const got = fusedEdit(name, shape, fI?.get(name) as Float32Array, Float32Array.from(fT?.get(name) as Float32Array), handedOver).values;
        const want = fused(merged).get(name) as Float32Array;
        expect(Array.from(got), name).toEqual(Array.from(want));
        expect(got.some((v, i) => v !== (fI?.get(name) as Float32Array)[i])).toBe(true);
      }
    });
  }

  it('reports each part\'s S, and the projector on gate_up only', () => {
    const theta = fI?.get(GATE_UP) as Float32Array;
    const result = craneDelta(classifyTensor(GATE_UP), FUSED_SHAPES.get(GATE_UP) as number[], theta, fT?.get(GATE_UP) as Float32Array, settings, context(fusedTable));
    expect(result.expertScales?.map((s) => s.key)).toEqual([0, 0, 1, 1, 2, 2].map((e) => `expert.${e}@2`));
    expect(result.projectedWith).toBe('layer_2_ffn_input');
    expect(craneDelta(classifyTensor(DOWN), FUSED_SHAPES.get(DOWN) as number[], fI?.get(DOWN) as Float32Array, fT?.get(DOWN) as Float32Array, settings, context(fusedTable)).projectedWith).toBeNull();
  });
});
