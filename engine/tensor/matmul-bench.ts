/**
 * measureMatmulGflops(): the active backend's own dense matmul throughput, the yardstick that
 * `crane doctor` prints and that tools/bench-train-step.ts divides its achieved GFLOP/s by.
 * Square n×n·n×n products (2n³ FLOPs each), a few warm-up runs, then the median of timed runs;
 * each run waits for the result (dataSync) so asynchronous backends are timed honestly.
 */
import * as tf from '@tensorflow/tfjs-core';

export interface MatmulBenchOptions {
  /** Matrix side; default 512. */
  readonly size?: number;
  readonly warmup?: number;
  /** Timed runs; the median is reported. */
  readonly runs?: number;
}

export interface MatmulBenchResult {
  readonly size: number;
  readonly gflops: number;
  /** Median seconds per matmul. */
  readonly seconds: number;
}

export function measureMatmulGflops(options: MatmulBenchOptions = {}): MatmulBenchResult {
  const size = options.size ?? 512;
  const warmup = options.warmup ?? 2;
  const runs = options.runs ?? 5;
  const a = tf.randomUniform([size, size], -1, 1, 'float32', 1);
  const b = tf.randomUniform([size, size], -1, 1, 'float32', 2);
  try {
    const once = (): number => {
      const start = performance.now();
      const c = tf.matMul(a, b);
      c.dataSync();
      const elapsed = (performance.now() - start) / 1000;
      c.dispose();
      return elapsed;
    };
    for (let i = 0; i < warmup; i++) once();
    const times = Array.from({ length: Math.max(1, runs) }, once).sort((x, y) => x - y);
    const seconds = times[Math.floor(times.length / 2)] as number;
    return { size, seconds, gflops: (2 * size ** 3) / seconds / 1e9 };
  } finally {
    a.dispose();
    b.dispose();
  }
}
