/**
 * Checkpoint tensors read once and shared read-only between worker threads.
 *
 *   shareTensors(checkpoint, names) → SharedTensor[]      main thread: float32 in SharedArrayBuffers
 *   withSharedTensors(source, shared) → WeightSource      worker: those names served from shared memory
 *
 * Each gradient worker would otherwise cache its own float32 copy of the embedding (vocab ×
 * hidden: 622 MB at Qwen3-0.6B shapes, also the tied lm_head). Decoder layers are streamed
 * from disk one at a time and are not worth sharing. The runtime only reads the embedding
 * (row gathers, head chunk uploads), so one copy serves every thread.
 */
import type { Checkpoint } from '../io/checkpoint.ts';
import type { WeightSource } from '../model/weights.ts';
import type { SharedTensor } from './gradient-worker-protocol.ts';

export async function shareTensors(checkpoint: Pick<Checkpoint, 'readFloat32'>, names: readonly string[]): Promise<SharedTensor[]> {
  const shared: SharedTensor[] = [];
  for (const name of names) {
    const values = await checkpoint.readFloat32(name);
    const buffer = new SharedArrayBuffer(values.byteLength);
    new Float32Array(buffer).set(values);
    shared.push({ name, buffer });
  }
  return shared;
}

export function withSharedTensors(source: WeightSource, shared: readonly SharedTensor[]): WeightSource {
  const byName = new Map(shared.map((t) => [t.name, t.buffer]));
  return {
    dir: source.dir,
    config: source.config,
    tensors: source.tensors,
    tensor: (name) => source.tensor(name),
    readFloat32: async (name) => {
      const buffer = byName.get(name);
      return buffer === undefined ? source.readFloat32(name) : new Float32Array(buffer);
    },
  };
}
