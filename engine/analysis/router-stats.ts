/**
 * Router statistics of an MoE model per calibration set, layer and expert: how many of the set's
 * tokens were routed to the expert, and the expert's mean router probability over those tokens
 * (all of them, routed or not) — which experts D_R's reasoning, D_A's tool use and D_F's format
 * tokens go to.
 *
 *   new RouterStatsAccumulator(numExperts, k) .add(set, layer, routing, positions) … .json()
 *   writeRouterStats(file, json) / readRouterStats(file)     router-stats.json, validated (a bad file is named)
 *
 * Which tokens count is the caller's choice (the pipeline: D_R/D_A's loss targets, D_F's format
 * positions). Counts are exact integers; probabilities are summed in float64.
 */
import { z } from 'zod';
import { writeFileAtomic } from '../io/atomic-file.ts';
import { readJsonFile } from '../io/json-file.ts';
import type { MoeRouting } from '../model/moe-routing.ts';

export const ROUTER_STATS_FILE = 'router-stats.json';
const SET_NAMES = ['reasoning', 'agent', 'format'] as const;
export type RouterStatsSet = (typeof SET_NAMES)[number];

const layerStatsSchema = z.object({
  layer: z.int().min(0),
  /** Tokens of the set routed to each expert. */
  routed: z.array(z.int().min(0)),
  /** Mean router probability of each expert over the set's tokens. */
  meanProbability: z.array(z.number().min(0).max(1)),
});

const routerStatsSchema = z.object({
  format: z.literal('crane-router-stats'),
  version: z.literal(1),
  numExperts: z.int().min(1),
  expertsPerToken: z.int().min(1),
  sets: z.partialRecord(z.enum(SET_NAMES), z.object({ tokens: z.int().min(0), layers: z.array(layerStatsSchema) })),
});

export type RouterStats = z.infer<typeof routerStatsSchema>;

interface LayerSums {
  readonly routed: Float64Array;
  readonly probability: Float64Array;
  tokens: number;
}

export class RouterStatsAccumulator {
  private readonly sums = new Map<RouterStatsSet, Map<number, LayerSums>>();

  constructor(private readonly numExperts: number, private readonly expertsPerToken: number) {}

  /** Adds the tokens at `positions` of one sequence's routing at `layer`. */
  add(set: RouterStatsSet, layer: number, routing: MoeRouting, positions: readonly number[]): void {
    const e = this.numExperts;
    if (routing.numExperts !== e || routing.expertsPerToken !== this.expertsPerToken) throw new RangeError(`layer ${layer}: routing of ${routing.numExperts} experts top-${routing.expertsPerToken}, expected ${e} top-${this.expertsPerToken}`);
    const layers = this.sums.get(set) ?? new Map<number, LayerSums>();
    this.sums.set(set, layers);
    const sums = layers.get(layer) ?? { routed: new Float64Array(e), probability: new Float64Array(e), tokens: 0 };
    layers.set(layer, sums);
    for (const t of positions) {
      if (!Number.isInteger(t) || t < 0 || t >= routing.tokens) throw new RangeError(`position ${t} is outside the sequence's ${routing.tokens} tokens`);
      for (let j = 0; j < this.expertsPerToken; j++) {
        const expert = routing.experts[t * this.expertsPerToken + j] as number;
        sums.routed[expert] = (sums.routed[expert] as number) + 1;
      }
      for (let x = 0; x < e; x++) sums.probability[x] = (sums.probability[x] as number) + (routing.probs[t * e + x] as number);
      sums.tokens++;
    }
  }

  json(): RouterStats {
    const sets: RouterStats['sets'] = {};
    for (const [set, layers] of this.sums) {
      const ordered = [...layers].sort(([a], [b]) => a - b);
      sets[set] = {
        tokens: ordered[0]?.[1].tokens ?? 0,
        layers: ordered.map(([layer, s]) => ({ layer, routed: Array.from(s.routed), meanProbability: Array.from(s.probability, (p) => (s.tokens === 0 ? 0 : Math.min(1, p / s.tokens))) })),
      };
    }
    return { format: 'crane-router-stats', version: 1, numExperts: this.numExperts, expertsPerToken: this.expertsPerToken, sets };
  }
}

export async function writeRouterStats(file: string, stats: RouterStats): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(stats)}\n`);
}

/** The file's statistics; undefined when the analysis has none (a dense model). */
export function readRouterStats(file: string): Promise<RouterStats | undefined> {
  return readJsonFile(file, routerStatsSchema, 'router statistics (crane-router-stats v1)');
}
