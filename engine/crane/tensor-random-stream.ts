/**
 * Deterministic randomness for DARE: the same seed and tensor name give the same mask on any
 * machine, in any tensor order.
 *
 *   hashName(name) → uint32          FNV-1a over the UTF-8 bytes
 *   uniformStream(seed, name) → () => number in [0, 1)
 *
 * The stream is mulberry32 seeded with a splitmix-style mix of (seed, hash(name)), so
 * neighbouring seeds and similar names do not give correlated streams.
 */
import { SeededRandom } from '../util/seeded-random.ts';

export function hashName(name: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(name)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

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
