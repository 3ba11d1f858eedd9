/**
 * The project's one seeded PRNG (mulberry32, Box–Muller normals) and string hash (FNV-1a): demo
 * data, training, DARE masks, test fixtures and the renderer's synthetic engine are all
 * reproducible from a seed on any machine. It sits on the protocol floor — Node-free, below every
 * engine folder and bundled into the renderer — so one definition serves both.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /** n values drawn from mean + std·N(0, 1). */
  normals(n: number, std: number, mean = 0): Float32Array {
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = mean + std * this.normal();
    return out;
  }
}

/** 32-bit FNV-1a over the UTF-8 bytes of a name: a seed per tensor or layer name. */
export function hashName(name: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(name)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
