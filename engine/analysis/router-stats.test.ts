import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MoeRouting } from '../model/moe-routing.ts';
import { RouterStatsAccumulator, readRouterStats, writeRouterStats } from './router-stats.ts';

/** 3 tokens over 3 experts, top-2. */
const ROUTING: MoeRouting = {
  tokens: 3, numExperts: 3, expertsPerToken: 2,
  probs: Float32Array.from([0.5, 0.3, 0.2, 0.1, 0.6, 0.3, 0.25, 0.25, 0.5]),
  experts: Int32Array.from([0, 1, 1, 2, 2, 0]),
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crane-router-stats-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('RouterStatsAccumulator', () => {
  it('counts routed tokens and averages router probabilities over the chosen positions, per set and layer', () => {
    const stats = new RouterStatsAccumulator(3, 2);
    stats.add('reasoning', 4, ROUTING, [1, 2]);
    stats.add('reasoning', 4, ROUTING, [0]);
    stats.add('format', 4, ROUTING, [2]);
    const json = stats.json();
    expect(json.sets.reasoning?.tokens).toBe(3);
    expect(json.sets.reasoning?.layers).toEqual([{ layer: 4, routed: [2, 2, 2], meanProbability: [expect.closeTo(0.85 / 3, 7), expect.closeTo(1.15 / 3, 7), expect.closeTo(1 / 3, 7)] }]);
    expect(json.sets.format?.layers[0]?.routed).toEqual([1, 0, 1]);
    expect(json.sets.agent).toBeUndefined();
  });

  it('refuses a position outside the sequence and a routing of another shape', () => {
    const stats = new RouterStatsAccumulator(3, 2);
    expect(() => stats.add('agent', 0, ROUTING, [3])).toThrow(/position 3 is outside the sequence's 3 tokens/);
    expect(() => new RouterStatsAccumulator(4, 2).add('agent', 0, ROUTING, [0])).toThrow(/routing of 3 experts top-2, expected 4 top-2/);
  });

  it('round-trips through router-stats.json and names a file of the wrong shape', async () => {
    const stats = new RouterStatsAccumulator(3, 2);
    stats.add('agent', 1, ROUTING, [0, 1, 2]);
    const file = join(dir, 'router-stats.json');
    await writeRouterStats(file, stats.json());
    expect(await readRouterStats(file)).toEqual(stats.json());
    expect(await readRouterStats(join(dir, 'absent.json'))).toBeUndefined();
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ ...stats.json(), version: 2 }));
    await expect(readRouterStats(bad)).rejects.toThrow(/bad\.json: is not router statistics/);
  });
});
