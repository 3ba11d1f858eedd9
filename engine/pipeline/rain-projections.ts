/**
 * RAIN stage 1 on a model (nullspace_projection_compute.py): each head's slice of τ = instruct −
 * base projected onto the null space of the Thinking model's reasoning constraints, gathered on
 * the LRM prompts.
 *
 *   rainLayers(numLayers, tail) → the last `tail` decoder layers (the reference's --layers_tail)
 *   computeRainProjections(input) → RainProjections: tensor name → head → projected slice
 *
 * Per prompt (in order, one seeded shuffle stream across prompts as the reference's rng), the
 * <think>/</think> neighbourhood sites (rain-constraints.ts, the reference's 8 Q / 8 K pairs and
 * 4 V / 4 O positions per prompt, radius from the settings); per layer, two unit read-out
 * directions drawn from the seed; the Thinking model's attention input X at every selected layer
 * (captureRainFeatures) and, for V/O, the attention rows as the reference recomputes them (raw
 * q/k, no RoPE). Every head's rows from every prompt are stacked, then each head's q/k/v/o slice
 * is projected with the ridge λ (rain-projection.ts; the reference runs CG to 1e-5 on the same
 * system, we solve it exactly).
 *
 * Memory: the constraint rows of every selected (layer, head) are held until the projection:
 * 24 rows per prompt per head (8 + 8 + 4·2 + 4·2), each d_model + head_dim doubles.
 */
import { projectTaskSlice, type RankOneConstraints } from '../crane/rain-projection.ts';
import { rainHeadConstraints, rainReferenceAttention, rainSites, type RainLayerWeights, type RainSiteRows } from '../crane/rain-constraints.ts';
import { rainTaskSlice, type RainProjectionKind, type RainTensor } from '../crane/rain-edit.ts';
import type { CausalLM } from '../model/causal-lm.ts';
import { captureRainFeatures } from '../model/rain-features.ts';
import { layerTensorName, type WeightSource } from '../model/weights.ts';
import { SeededRandom } from '../protocol/seeded-random.ts';
import type { RainReasoningPrompt } from './rain-calibration.ts';

export const RAIN_KINDS: readonly RainProjectionKind[] = ['q', 'k', 'v', 'o'];
/** The reference's rows per prompt (q/k/v/o_rows_per_text) and read-out directions. */
const ROWS_PER_PROMPT = { q: 8, k: 8, v: 4, o: 4 } as const;
const READOUT_DIRECTIONS = 2;
const UNIT_WEIGHTS = { q: 1, k: 1, v: 1, o: 1 } as const;

export interface RainProjectionSettings {
  readonly ridge: number;
  readonly radius: number;
  readonly seed: number;
}

export interface RainProjections {
  readonly layers: readonly number[];
  readonly heads: number;
  /** Per q/k/v/o_proj weight name: each head's projected d_model × head_dim slice of τ. */
  readonly slices: ReadonlyMap<string, { readonly tensor: RainTensor; readonly layer: number; readonly heads: readonly Float64Array[] }>;
}

export interface RainProjectionInput {
  readonly thinking: CausalLM;
  readonly base: WeightSource;
  readonly instruct: WeightSource;
  readonly prompts: readonly RainReasoningPrompt[];
  readonly layers: readonly number[];
  readonly settings: RainProjectionSettings;
  readonly onProgress?: (fraction: number, text: string) => void;
}

export function rainLayers(numLayers: number, tail: number): number[] {
  return Array.from({ length: Math.min(numLayers, tail) }, (_, i) => numLayers - Math.min(numLayers, tail) + i);
}

export const rainTensorName = (layer: number, kind: RainProjectionKind): string => layerTensorName(layer, `self_attn.${kind}_proj.weight`);

export async function computeRainProjections(input: RainProjectionInput): Promise<RainProjections> {
  const { thinking, prompts, layers, settings } = input;
  const { spec } = thinking;
  const geometry = { dModel: spec.hiddenSize, headDim: spec.headDim, kvHeads: spec.numKvHeads, heads: spec.numHeads };
  const weights = new Map<number, RainLayerWeights>();
  for (const layer of layers) weights.set(layer, await readAttentionWeights(thinking.context.checkpoint, layer));
  const readouts = new Map(layers.map((layer) => [layer, unitReadouts(settings.seed, layer, spec.hiddenSize)]));
  const rows: RainSiteRows = { radius: settings.radius, ...ROWS_PER_PROMPT };
  const shuffles = new SeededRandom(settings.seed);
  const gathered = new Map<string, RankOneConstraints[]>();
  for (const [index, prompt] of prompts.entries()) {
    const sites = rainSites(prompt.thinkStart, prompt.thinkEnd, prompt.ids.length, rows, shuffles);
    await captureRainFeatures(thinking.context, prompt.ids, layers, (capture) => {
      const layerWeights = weights.get(capture.layer) as RainLayerWeights;
      const attention = memoise((head: number) => rainReferenceAttention(capture, layerWeights, geometry, head));
      const features = { inputs: capture.inputs, length: capture.length, attention };
      for (let head = 0; head < spec.numHeads; head++) {
        const constraints = rainHeadConstraints(features, layerWeights, geometry, sites, readouts.get(capture.layer) as Float64Array[], UNIT_WEIGHTS, head);
        for (const kind of RAIN_KINDS) {
          const key = `${capture.layer}/${head}/${kind}`;
          const list = gathered.get(key) ?? [];
          list.push(constraints[kind]);
          gathered.set(key, list);
        }
      }
      input.onProgress?.((index + (layers.indexOf(capture.layer) + 1) / layers.length) / (prompts.length + 1), `RAIN constraints, prompt ${index + 1}/${prompts.length}, layer ${capture.layer}`);
    });
  }
  const slices = new Map<string, { tensor: RainTensor; layer: number; heads: Float64Array[] }>();
  for (const layer of layers) {
    for (const kind of RAIN_KINDS) {
      const name = rainTensorName(layer, kind);
      const shape = input.instruct.tensor(name).shape;
      const tensor: RainTensor = { kind, name, shape: [shape[0] as number, shape[1] as number], headDim: spec.headDim, kvHeads: spec.numKvHeads };
      const [base, instruct] = [await input.base.readFloat32(name), await input.instruct.readFloat32(name)];
      const heads = Array.from({ length: spec.numHeads }, (_, head) => {
        const constraints = stackConstraints(gathered.get(`${layer}/${head}/${kind}`) ?? []);
        return projectTaskSlice(rainTaskSlice(tensor, base, instruct, head), spec.hiddenSize, spec.headDim, constraints, settings.ridge);
      });
      slices.set(name, { tensor, layer, heads });
    }
    input.onProgress?.((prompts.length + (layers.indexOf(layer) + 1) / layers.length) / (prompts.length + 1), `RAIN null-space projection, layer ${layer}`);
  }
  return { layers, heads: spec.numHeads, slices };
}

async function readAttentionWeights(source: WeightSource, layer: number): Promise<RainLayerWeights> {
  const read = (kind: RainProjectionKind) => source.readFloat32(rainTensorName(layer, kind));
  return { q: await read('q'), k: await read('k'), v: await read('v'), o: await read('o') };
}

/** The reference's read-outs: c = g / (‖g‖ + 1e-6), g standard normal, drawn per layer. */
function unitReadouts(seed: number, layer: number, dModel: number): Float64Array[] {
  const random = new SeededRandom(seed * 1_000_003 + layer + 1);
  return Array.from({ length: READOUT_DIRECTIONS }, () => {
    const g = Float64Array.from({ length: dModel }, () => random.normal());
    const norm = Math.sqrt(g.reduce((sum, v) => sum + v * v, 0));
    return g.map((v) => v / (norm + 1e-6));
  });
}

function stackConstraints(parts: readonly RankOneConstraints[]): RankOneConstraints {
  const count = parts.reduce((sum, p) => sum + p.count, 0);
  const join = (pick: (p: RankOneConstraints) => Float64Array) => {
    const out = new Float64Array(parts.reduce((sum, p) => sum + pick(p).length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(pick(p), at);
      at += pick(p).length;
    }
    return out;
  };
  return { count, inputs: join((p) => p.inputs), partners: join((p) => p.partners), scales: join((p) => p.scales) };
}

function memoise<T>(compute: (key: number) => T): (key: number) => T {
  const cache = new Map<number, T>();
  return (key) => {
    if (!cache.has(key)) cache.set(key, compute(key));
    return cache.get(key) as T;
  };
}
