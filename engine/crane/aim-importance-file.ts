/**
 * The AIM importance file: safetensors, F32 (the reference's dtype), one 1-D tensor per Linear
 * named by its module (`model.layers.0.self_attn.o_proj`), sorted by name so equal values give
 * equal bytes — which the recipe's SHA-256 of an AIM export relies on.
 *
 *   writeAimImportance(path, importance) / readAimImportance(path) → module → vector
 *
 * Beside aim.ts rather than in the pipeline that measures it: export (a lower floor) reads it too.
 */
import { CheckpointError } from '../io/checkpoint-error.ts';
import { SafetensorsFile } from '../io/safetensors-reader.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';

export async function writeAimImportance(path: string, importance: ReadonlyMap<string, Float64Array>): Promise<void> {
  const names = [...importance.keys()].sort();
  await writeSafetensors(path, names.map((name) => {
    const values = importance.get(name) as Float64Array;
    return { spec: { name, dtype: 'F32' as const, shape: [values.length] }, data: Float32Array.from(values) };
  }));
}

export async function readAimImportance(path: string): Promise<Map<string, Float32Array>> {
  const file = await SafetensorsFile.open(path);
  try {
    const out = new Map<string, Float32Array>();
    for (const name of file.tensors.keys()) {
      if (file.info(name).shape.length !== 1) throw new CheckpointError('shape', path, 'is not a 1-D AIM importance vector', name);
      out.set(name, await file.readFloat32(name));
    }
    if (out.size === 0) throw new CheckpointError('shape', path, 'holds no AIM importance vectors (the analysis had no D_R or D_A prompt)');
    return out;
  } finally {
    await file.close();
  }
}
