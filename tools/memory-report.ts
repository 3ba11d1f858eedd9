/**
 * What the memory benchmarks (bench-memory.ts, bench-shapes.ts) measure and how they print it:
 * this process's peak RSS, the wasm heap's high-water mark, and an export's peak against the
 * limit issue 14 sets (2 × the largest tensor as float32 + 256 MiB).
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Checkpoint } from '../engine/io/checkpoint.ts';
import { numel } from '../engine/io/safetensors-header.ts';
import { formatBytes } from '../engine/protocol/format-bytes.ts';

export function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

/** wasm memory only grows, so its size now is the most the heap ever held (0 off wasm). */
export function wasmHeapBytes(): number {
  const backend = tf.backend() as unknown as { wasm?: { HEAPU8: Uint8Array } };
  return backend.wasm?.HEAPU8.byteLength ?? 0;
}

/** The checkpoint's largest tensor as float32 bytes: what an export's edit holds of it at once. */
export function largestF32Bytes(checkpoint: Checkpoint): number {
  return 4 * Math.max(...[...checkpoint.tensors.values()].map((t) => numel(t.shape)));
}

/** "peak RSS X = n× the largest tensor (f32); limit 2× + 256 MiB = Y: met" for an export's figures. */
export function exportVerdict(result: Readonly<Record<string, number>>): string {
  const [rss, largest] = [result['peakRss'] ?? 0, result['largestF32'] ?? 1];
  const limit = 2 * largest + 256 * 1024 ** 2;
  return `peak RSS ${formatBytes(rss)} = ${(rss / largest).toFixed(2)}× the largest tensor (${formatBytes(largest)} as f32); limit 2× + 256 MiB = ${formatBytes(limit)}: ${rss <= limit ? 'met' : 'NOT met'}`;
}
