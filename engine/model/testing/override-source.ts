/**
 * A WeightSource that serves replacement values for chosen tensors and reads the rest from the
 * wrapped checkpoint: finite-difference tests perturb one coordinate this way.
 */
import type { WeightSource } from '../weights.ts';

export function withOverrides(base: WeightSource, overrides: ReadonlyMap<string, Float32Array>): WeightSource {
  return {
    dir: base.dir,
    config: base.config,
    tensors: base.tensors,
    tensor: (name) => base.tensor(name),
    readFloat32: async (name) => {
      const value = overrides.get(name);
      return value === undefined ? base.readFloat32(name) : Float32Array.from(value);
    },
  };
}

/** The tensor `name` of `base` with coordinate `index` shifted by `delta`. */
export async function perturbed(base: WeightSource, name: string, index: number, delta: number): Promise<Map<string, Float32Array>> {
  const values = Float32Array.from(await base.readFloat32(name));
  values[index] = (values[index] as number) + delta;
  return new Map([[name, values]]);
}
