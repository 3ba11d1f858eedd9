/**
 * A data folder holding a tiny analysed Qwen3-MoE project (4 layers × 8 experts, top-2), for the
 * experts views (analysed-tiny.ts).
 */
import { analysedTinyDataDir } from './analysed-tiny.ts';

export const TINY_MOE = { layers: 4, experts: 8, perToken: 2 } as const;

export function analysedMoeDataDir(): Promise<{ dataDir: string; projectDir: string }> {
  return analysedTinyDataDir('tiny-moe', { layers: TINY_MOE.layers, moe: { experts: TINY_MOE.experts, perToken: TINY_MOE.perToken, inner: 8 } });
}
