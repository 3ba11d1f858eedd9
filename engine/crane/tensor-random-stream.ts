/**
 * Deterministic randomness for DARE: the same seed and tensor name give the same mask on any
 * machine, in any tensor order.
 *
 *   uniformStream(seed, name) → () => number in [0, 1)
 *
 * The stream is mulberry32 (SeededRandom) seeded with a splitmix-style mix of (seed,
 * FNV-1a(name)), so neighbouring seeds and similar names do not give correlated streams.
 */
import { hashName, SeededRandom } from '../protocol/seeded-random.ts';

export function uniformStream(seed: number, name: string): () => number {
  const rng = new SeededRandom(mix32((seed >>> 0) ^ mix32(hashName(name))));
  return () => rng.next();
}

function mix32(x: number): number {
  let z = (x + 0x9e3779b9) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}
